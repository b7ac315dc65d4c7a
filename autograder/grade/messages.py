"""What ``grade`` says to a person, put into words (in the current language) when it is shown.

What a graded submission keeps (``Graded``: its status id, due date, submission time, penalty; see
``outputs/details.py``) is data: the status word, the late note and the lateness notes are made
from it here, each time a feedback page, the class report or the summary shows them. A regrade
that reads ``<out stem>_results.json`` back then says them in its own caller's language, whatever
the language of the run that graded that submission first.
"""

from __future__ import annotations

import shlex
from datetime import datetime

from autograder.core.result import NOT_JUDGED
from autograder.grade.results import GRADED, LATE, Graded, listed, status
from autograder.i18n import N_, _, ngettext
from autograder.sandbox.protocol import one_line

TIMESTAMP = "timestamp.txt"  # nbgrader writes the submission time here

# What each output of a class is called in the summary (``GradeTable.outputs``' keys).
OUTPUTS = (
    N_("HTML feedback"),
    N_("class report"),
    N_("Gradescope results"),
    N_("LMS gradebook CSV"),
    N_("Canvas gradebook CSV"),
)


def _delay(hours: float) -> str:
    if hours < 48:
        return _("{hours} hours").format(hours=f"{hours:.1f}")
    return _("{days} days").format(days=f"{hours / 24:.1f}")


def late_note(g: Graded) -> str:
    """What a late submission's feedback says of it (empty where the row does not say when)."""
    if g.status != LATE or g.submitted is None or g.due is None:
        return ""
    if g.penalty or g.late_penalty:
        penalty = _("late penalty: -{points} points").format(points=f"{g.penalty:g}")
    else:
        penalty = _("no penalty")
    return _("submitted {submitted} UTC, {delay} after the due date ({due} UTC); {penalty}").format(
        submitted=f"{g.submitted:%Y-%m-%d %H:%M}",
        delay=_delay((g.submitted - g.due).total_seconds() / 3600),
        due=f"{g.due:%Y-%m-%d %H:%M}",
        penalty=penalty,
    )


def notes(g: Graded) -> list[str]:
    """The notes a submission's feedback shows: its ``timestamp.txt`` that could not be read,
    what the judge noted (``g.notes``), and its lateness (not checked, or late)."""
    said = []
    if g.timestamp_problem:
        said.append(
            _("{file} could not be read ({problem}); lateness not checked").format(
                file=TIMESTAMP, problem=g.timestamp_problem
            )
        )
    said += g.notes
    if g.status == GRADED and g.due is not None and g.submitted is None:
        if not g.timestamp_problem:
            said.append(
                _("no {file} in the submission: lateness not checked").format(file=TIMESTAMP)
            )
    late = late_note(g)
    return said + ([late] if late else [])


def error(g: Graded) -> str | None:
    """Why a submission could not be graded: kept in English (the source text), said in the
    current language where it is one of the catalog's messages (``grading.LINKED_STUDENT``...)."""
    return _(g.error) if g.error else g.error


def first_ten(names: list[str]) -> str:
    """``names`` for a note: the first ten, then how many more."""
    more = len(names) - 10
    tail = _(" and {n} more").format(n=more) if more > 0 else ""
    return listed(names[:10]) + tail


# -- the summary's notes on the class (made by the run that prints them) -------------------------
def held_to(dates: dict[str | None, datetime], assignments: list[str]) -> list[str]:
    """The due dates given for these assignments (or for every one), as the summary says them: a
    date alone, 'Dec 1 2026', is the midnight that starts it (a trial's class was all late so)."""
    said = [
        _("{assignment} {when} UTC").format(
            assignment=name or _("every assignment"), when=f"{when:%Y-%m-%d %H:%M}"
        )
        for name, when in dates.items()
        if name is None or name in assignments
    ]
    # TRANSLATORS: the due dates the class was held to ("due: 04_softmax_masks 2026-12-01 ...")
    return [_("due: {dates}").format(dates=_("; ").join(said))] if said else []


def unread_cells(rows: list[Graded]) -> list[str]:
    """The submissions with cells the grader could not read (a syntax error): a row of the table
    looks like wrong code otherwise, and only the student's feedback named them (a trial)."""
    said = [f"{one_line(g.student)}/{g.assignment} ({g.unread})" for g in rows if g.unread]
    if not said:
        return []
    return [
        ngettext(
            "cells not read (a syntax error, say: skipped, and what they define graded as "
            "missing) in {n} submission: {names}; each one's feedback names its cells",
            "cells not read (a syntax error, say: skipped, and what they define graded as "
            "missing) in {n} submissions: {names}; each one's feedback names its cells",
            len(said),
        ).format(n=len(said), names=first_ten(said))
    ]


def not_judged(rows: list[Graded]) -> list[str]:
    """Each submission with exercises the grader could not judge (its sandbox did not start,
    twice, the second time a fresh one): their points are 0 in this table, not the student's
    doing, and the instructor is told how to grade them again."""
    said = []
    for g in rows:
        names = [r.exercise for r in g.results if r.mistake == NOT_JUDGED]
        if names:
            said.append(
                _(
                    "not judged: {submission}: {names} (the grader's sandbox did not start, or "
                    "the machine was too busy to measure a call's memory; not the student's "
                    "code): grade it again with {options}"
                ).format(
                    submission=f"{one_line(g.student)}/{g.assignment}",
                    names=", ".join(names),
                    options=f"--student {one_line(shlex.quote(g.student))} "
                    f"--assignment {shlex.quote(g.assignment)}",
                )
            )
    return said


def lateness_unchecked(rows: list[Graded]) -> list[str]:
    """The submissions that had a due date but no readable ``timestamp.txt``: graded without the
    lateness check, which each one's feedback says, and the instructor is told here too (an
    instructor's trial: the class report said "no late submission")."""
    unchecked = [
        f"{one_line(g.student)}/{g.assignment}"
        for g in rows
        if g.due is not None and g.submitted is None and g.status == GRADED
    ]
    if not unchecked:
        return []
    return [
        ngettext(
            "lateness not checked (no readable timestamp.txt) for {n} submission: {names}",
            "lateness not checked (no readable timestamp.txt) for {n} submissions: {names}",
            len(unchecked),
        ).format(n=len(unchecked), names=first_ten(unchecked))
    ]


def changes(before: dict[tuple[str, str], Graded], rows: list[Graded]) -> list[str]:
    """What a regrade changed: each submission whose status or total is not what it was."""
    said = []
    for g in rows:
        old = before.get((g.student, g.assignment))
        if old is None or (old.status, round(old.total, 6)) == (g.status, round(g.total, 6)):
            continue
        said.append(
            _("changed: {submission}: {before}, {old} -> {now}, {new} (of {max})").format(
                submission=f"{one_line(g.student)}/{g.assignment}",
                before=status(old.status),
                old=f"{old.total:g}",
                now=status(g.status),
                new=f"{g.total:g}",
                max=f"{g.max_points:g}",
            )
        )
    return said


def _due(when) -> str:
    return f"{when:%Y-%m-%d %H:%M} UTC" if when else _("no due date")


def due_unlike_kept(before: dict[tuple[str, str], Graded], rows: list[Graded]) -> list[str]:
    """A regrade whose rows are held to another due date than the table's other rows of the same
    assignment (a trial: `--student bob --due ...` held bob to a date the class was not, without
    a word)."""
    regraded = {(g.student, g.assignment) for g in rows}
    said = []
    for name in sorted({g.assignment for g in rows}):
        now = {g.due for g in rows if g.assignment == name}
        kept = {g.due for k, g in before.items() if k not in regraded and g.assignment == name}
        if kept and now != kept:
            said.append(
                _(
                    "{assignment}: due {now} for the rows regraded, {kept} for the table's other "
                    "rows of it (a row keeps the due date it was graded with until --due gives "
                    "another)"
                ).format(
                    assignment=name,
                    now=_(", ").join(_due(d) for d in sorted(now, key=_order)),
                    kept=_(", ").join(_due(d) for d in sorted(kept, key=_order)),
                )
            )
    return said


def _order(when) -> tuple:
    return (when is not None, when or 0)

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

from autograder.core.result import NOT_JUDGED, TAMPERING
from autograder.grade.due import local
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


def when(moment: datetime, zone: str | None, utc: bool = True) -> str:
    """A time as a person reads it: in the zone the due date was given in, as it was written,
    with the time in UTC beside it (``utc``): "2026-12-01 23:59 Asia/Shanghai (15:59 UTC)"; in
    UTC where no zone was given ("2026-12-01 15:59 UTC")."""
    if not zone:
        return f"{moment:%Y-%m-%d %H:%M} UTC"
    there = f"{local(moment, zone):%Y-%m-%d %H:%M} {zone}"
    if not utc:
        return there
    same_day = local(moment, zone).date() == moment.date()
    # TRANSLATORS: a time in the zone the due date was given in, then in UTC (its date left out
    # where it is the same): "2026-12-01 23:59 Asia/Shanghai (15:59 UTC)"
    return _("{time} ({utc} UTC)").format(
        time=there, utc=f"{moment:%H:%M}" if same_day else f"{moment:%Y-%m-%d %H:%M}"
    )


def delay(g: Graded) -> str:
    """How long after its due date a late submission came ("11.5 hours"; empty if not late)."""
    if g.status != LATE or g.submitted is None or g.due is None:
        return ""
    return _delay((g.submitted - g.due).total_seconds() / 3600)


def late_note(g: Graded) -> str:
    """What a late submission's feedback says of it (empty where the row does not say when),
    its times in the zone its due date was given in."""
    if not delay(g):
        return ""
    if g.penalty:
        penalty = _("late penalty: -{points} points").format(points=f"{g.penalty:g}")
    elif g.late_penalty:  # not "-0 points": the submission scored nothing to take off
        penalty = _("a late penalty of {fraction}, with no points to take off").format(
            fraction=f"{g.late_penalty * 100:g}%"
        )
    else:
        penalty = _("no penalty")
    return _("submitted {submitted}, {delay} after the due date ({due}); {penalty}").format(
        submitted=when(g.submitted, g.due_zone, utc=False),
        delay=delay(g),
        due=when(g.due, g.due_zone, utc=False),
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
    if g.others:
        said.append(
            _("graded {notebook} only; also in the folder, not graded: {others}").format(
                notebook=g.notebook, others=listed([one_line(o) for o in g.others])
            )
        )
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


def aside(text: str, detail: str) -> str:
    """``text`` with ``detail`` in brackets after it, as the language writes them ("Question 04.1
    (answer_04_1)"; Chinese brackets in Chinese, "问题 04.1（answer_04_1）")."""
    # TRANSLATORS: a thing and, in brackets, more about it ("Question 04.1 (answer_04_1)",
    # "dan/04_softmax_masks (2 cells)")
    return _("{text} ({detail})").format(text=text, detail=detail)


def first_ten(names: list[str]) -> str:
    """``names`` for a note: the first ten, then how many more."""
    more = len(names) - 10
    tail = _(" and {n} more").format(n=more) if more > 0 else ""
    return listed(names[:10]) + tail


# -- the summary's notes on the class (made by the run that prints them) -------------------------
def held_to(dates: dict[str | None, datetime], assignments: list[str]) -> list[str]:
    """The due dates given for these assignments (or for every one), as the summary says them:
    in the zone each was given in, with UTC beside (``dates.zones``, see ``due.DueDates``). A
    date alone, 'Dec 1 2026', is the midnight that starts it (a trial's class was all late so)."""
    zones = getattr(dates, "zones", {})
    every = _("every assignment")
    said = [
        f"{name or every} {when(moment, zones.get(name))}"
        for name, moment in dates.items()
        if name is None or name in assignments
    ]
    # TRANSLATORS: the due dates the class was held to ("due: 04_softmax_masks 2026-12-01 ...")
    return [_("due: {dates}").format(dates=_("; ").join(said))] if said else []


def held_to_recorded(dates: dict[str | None, datetime], rows: list[Graded]) -> list[str]:
    """The due dates rows were held to as recorded at an earlier grading, where this run was given
    none for their assignment (an instructor trial: a regrade that kept the date said nothing of
    it, where one given says "due: ...")."""
    if dates.get(None) is not None:  # a date given for every assignment
        return []
    kept: dict[str, dict] = {}
    for g in rows:
        if g.assignment not in dates and g.due is not None:
            kept.setdefault(g.assignment, {})[g.due] = g.due_zone
    said = [f"{name} {_dues(due)}" for name, due in sorted(kept.items())]
    if not said:
        return []
    # TRANSLATORS: as "due: ...", for dates recorded at an earlier grading and kept
    return [_("due, as recorded at an earlier grading: {dates}").format(dates=_("; ").join(said))]


def unread_cells(rows: list[Graded]) -> list[str]:
    """The submissions with cells the grader could not read (a syntax error): a row of the table
    looks like wrong code otherwise, and only the student's feedback named them (a trial)."""
    said = [
        aside(
            f"{one_line(g.student)}/{g.assignment}",
            ngettext("{n} cell", "{n} cells", g.unread).format(n=g.unread),
        )
        for g in rows
        if g.unread
    ]
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


def other_notebooks(rows: list[Graded]) -> list[str]:
    """The submissions whose folder holds other notebooks than the one graded: work in a copy
    (``04_softmax_masks-Copy1.ipynb``) beside the untouched original was graded as blank, and
    nothing said so (instructor trial 50)."""
    said = [f"{one_line(g.student)}/{g.assignment}" for g in rows if g.others]
    if not said:
        return []
    return [
        ngettext(
            "other notebooks beside the one graded in {n} submission: {names}; its feedback "
            "names them",
            "other notebooks beside the one graded in {n} submissions: {names}; each one's "
            "feedback names them",
            len(said),
        ).format(n=len(said), names=first_ten(said))
    ]


# A named mistake's lesson section in the class report where none cites it: one any lesson's code
# can make (timeout, out of memory...), or a lesson's own that its notebook does not cite
GENERAL, NOT_CITED = N_("a general mistake: no lesson section"), N_("not cited in a lesson")


def tampered(rows: list[Graded]) -> list[str]:
    """The submissions whose code tried to change the grader or its results: stopped by the
    sandbox and scored 0 for it, and worth the instructor's look (an instructor trial: only the
    class report said so, as a mistake to re-teach)."""
    said = [
        aside(f"{one_line(g.student)}/{g.assignment}", listed(names))
        for g in rows
        if (names := [r.exercise for r in g.results if r.mistake == TAMPERING])
    ]
    if not said:
        return []
    return [
        ngettext(
            "{n} submission tried to change the grader or its results (the sandbox stopped it "
            "and those items score 0; its feedback says what it did): {submissions}",
            "{n} submissions tried to change the grader or its results (the sandbox stopped them "
            "and those items score 0; their feedback says what they did): {submissions}",
            len(said),
        ).format(n=len(said), submissions=first_ten(said))
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
                    names=listed(names),
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


def due_unlike_kept(before: dict[tuple[str, str], Graded], rows: list[Graded]) -> list[str]:
    """A regrade whose rows are held to another due date than the table's other rows of the same
    assignment (a trial: `--student bob --due ...` held bob to a date the class was not, without
    a word)."""
    regraded = {(g.student, g.assignment) for g in rows}
    said = []
    for name in sorted({g.assignment for g in rows}):
        now = {g.due: g.due_zone for g in rows if g.assignment == name}
        kept = {
            g.due: g.due_zone
            for k, g in before.items()
            if k not in regraded and g.assignment == name
        }
        if kept and set(now) != set(kept):
            said.append(
                _(
                    "{assignment}: due {now} for the rows regraded, {kept} for the table's other "
                    "rows of it (a row keeps the due date it was graded with until --due gives "
                    "another)"
                ).format(assignment=name, now=_dues(now), kept=_dues(kept))
            )
    return said


def _dues(dates: dict) -> str:
    """Due dates (each with its zone), earliest first, no date last."""
    order = sorted(dates, key=lambda d: (d is None, d or datetime.min))
    return _(", ").join(when(d, dates[d]) if d else _("no due date") for d in order)

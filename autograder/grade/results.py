"""What grading a class produces, and the course's assignments as its table lays them out.

A :class:`GradeTable` holds one :class:`Graded` per student and assignment, each with a status
(``STATUSES``). ``grading.py`` fills it; ``outputs/`` writes it (the CSV, the feedback,
the class report, the LMS exports). An assignment is a lesson's released folder
(``04_softmax_masks`` is lesson 04), and its columns follow the notebook's order.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from autograder.core.items import lesson_items
from autograder.core.result import NOT_JUDGED, Result
from autograder.grade import RELEASE
from autograder.sandbox.protocol import one_line

# What the table says about each student and assignment, besides the points.
GRADED = "graded"  # judged; on time, or no due date or no time to compare with
LATE = "late"  # judged, and submitted after the due date (a penalty only if one is given)
BLANK = "blank"  # readable, but not one exercise or question of the assignment attempted
UNREADABLE = "unreadable"  # there is something, but it cannot be read as a notebook
NOT_SUBMITTED = "not-submitted"  # no submission for this assignment
STATUSES = (GRADED, LATE, BLANK, UNREADABLE, NOT_SUBMITTED)


def label(item: str) -> str:
    """``answer_04_1`` -> ``Question 04.1``; an exercise keeps its name."""
    if item.startswith("answer_"):
        return "Question " + item.removeprefix("answer_").replace("_", ".")
    return item


# What a changed name ends with: ``-`` and 16 hex digits of its original's sha256 (64 bits: no
# one finds another name with a classmate's in any time). A name that already ends so is changed
# too, so no name is another's changed form (red team round 26: ``zo_-2752b886`` was ``zoë``'s).
CHANGED = re.compile(r"-[0-9a-f]{16}\Z")


def safe_name(name: str) -> str:
    """A file name for a student or assignment: letters, digits, ``.``, ``_`` and ``-`` (never
    first). A plain name stays as it is; one that had to change, or that ends like a changed one
    (``CHANGED``), gets a digest of the original: two names never share a file."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".-") or "_"
    if safe != name or CHANGED.search(name):
        safe = f"{safe[:64]}-{hashlib.sha256(os.fsencode(name)).hexdigest()[:16]}"
    return safe


def shared_folders(students) -> dict[str, list[str]]:
    """Students whose files would share one folder (one safe name): folder -> their ids. With
    ``safe_name`` as it is, none; checked wherever a student's own files are written."""
    folders: dict[str, list[str]] = {}
    for student in sorted(set(students)):
        folders.setdefault(safe_name(student), []).append(student)
    return {folder: ids for folder, ids in folders.items() if len(ids) > 1}


class GradeError(Exception):
    """The class cannot be graded at all (the CLI exits 2 with this message)."""


# What `grade` says to Ctrl-C (exit 130): it stops after the notebooks being graded, before any
# output is written; one that comes while they are written waits until they all are.
INTERRUPTED = (
    "interrupted: nothing was written (the table, the feedback and the gradebook are as they "
    "were); run the same command again to grade the class"
)


@dataclass
class Graded:
    student: str
    assignment: str
    status: str  # one of STATUSES
    max_points: float
    notebook: str = ""  # the file graded, as the learner named it (never a server path)
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was ignored, lateness
    error: str | None = None  # why the submission could not be graded at all
    submitted: datetime | None = None  # from nbgrader's timestamp.txt (UTC)
    penalty: float = 0.0  # points taken off for lateness
    # Recorded with the submission, so that a regrade keeps them until the instructor gives
    # others: the due date it was held to (UTC) and the fraction of its points a late one loses.
    due: datetime | None = None
    late_penalty: float = 0.0
    # Items whose points an instructor set in formgrader (nbgrader's manual_score), with the
    # grader's own points for each: the gradebook's score wins everywhere (see gradebook.py).
    manual: dict[str, float] = field(default_factory=dict)
    unread: int = 0  # cells of the notebook the grader could not read (a syntax error...)

    @property
    def total(self) -> float:
        return sum(r.points for r in self.results) - self.penalty


@dataclass
class GradeTable:
    rows: list[Graded]
    out: Path
    feedback_dir: Path
    ignored: list[str] = field(default_factory=list)  # folders that are not assignments
    submissions: Path | None = None  # SUBMISSIONS_DIR (the instructor's; never shown to learners)
    outputs: dict[str, Path] = field(default_factory=dict)  # what else was written: name -> path
    notes: list[str] = field(default_factory=list)  # for the instructor, about what was written
    gradebook: str = ""  # what was written into nbgrader's gradebook, when one was given
    regraded: bool = False  # only some students or assignments (--student, --assignment)

    def students(self) -> list[str]:
        return sorted({g.student for g in self.rows})

    def summary(self) -> str:
        counts = {s: sum(g.status == s for g in self.rows) for s in STATUSES}
        assignments = len({g.assignment for g in self.rows})
        graded = f"{plural(len(self.students()), 'student')}, {plural(assignments, 'assignment')}"
        text = (
            f"Regraded {graded}, the table's other rows kept"
            if self.regraded
            else f"Graded the class: {graded}"
        )
        text += f" -> {self.out} (feedback in {self.feedback_dir}/): " + ", ".join(
            f"{n} {s}" for s, n in counts.items() if n
        )
        ignored = [
            f"  ignored {one_line(p)}: not an assignment of the course" for p in self.ignored
        ]
        written = [f"  {name}: {path}" for name, path in self.outputs.items()]
        notes = [f"  note: {note}" for note in self.notes]
        manual = sum(len(g.manual) for g in self.rows)
        if manual:
            notes.append(
                f"  {plural(manual, 'score')} set in formgrader (the gradebook's manual scores) "
                "in every output, marked as the instructor's"
            )
        return "\n".join([text, *ignored, *written, *notes, *filter(None, [self.gradebook])])


def plural(n: int, noun: str) -> str:
    """``1 student``, ``2 students``."""
    return f"{n:g} {noun}" if n == 1 else f"{n:g} {noun}s"


@functools.cache
def released() -> dict[str, str]:
    """The course's assignments, as released in ``notebooks/``: folder name -> lesson."""
    if not RELEASE.is_dir():
        return {}
    return {p.name: p.name[:2] for p in RELEASE.iterdir() if re.match(r"\d\d_", p.name)}


def lesson_of(name: str) -> str | None:
    """The lesson an assignment folder is (``04_softmax_masks`` -> ``04``), or None when it is
    not one of the course's: a released folder name, or (where nothing is released) any name
    that starts with a lesson number that has exercises or questions."""
    match = re.match(r"(\d\d)(?:_|$)", name)
    lesson = released().get(name) if released() else match and match[1]
    return lesson if lesson and lesson_items(lesson) else None


@functools.cache
def notebook_order(lesson: str) -> tuple[str, ...]:
    """The lesson's exercises and questions in the order its released notebook asks them (the
    contract's order where there is no release)."""
    items = list(lesson_items(lesson))
    order = []
    for release in sorted(RELEASE.glob(f"{lesson}_*/{lesson}_*.ipynb"))[:1]:
        from autograder.core.extract import import_nbformat

        nbformat = import_nbformat()

        for cell in nbformat.read(release, as_version=4).cells:
            if cell.cell_type == "code":
                for m in re.finditer(r"\b(?:def|class)\s+(\w+)|\b(answer_\d+_\d+)\b", cell.source):
                    item = m[1] or m[2]
                    if item in items and item not in order:
                        order.append(item)
    return tuple(order + [item for item in items if item not in order])


def held_to(dates: dict[str | None, datetime], assignments: list[str]) -> list[str]:
    """The due dates given for these assignments (or for every one), as the summary says them: a
    date alone, 'Dec 1 2026', is the midnight that starts it (a trial's class was all late so)."""
    said = [
        f"{name or 'every assignment'} {when:%Y-%m-%d %H:%M} UTC"
        for name, when in dates.items()
        if name is None or name in assignments
    ]
    return ["due: " + "; ".join(said)] if said else []


def unread_cells(rows: list[Graded]) -> list[str]:
    """The submissions with cells the grader could not read (a syntax error): a row of the table
    looks like wrong code otherwise, and only the student's feedback named them (a trial)."""
    said = [f"{one_line(g.student)}/{g.assignment} ({g.unread})" for g in rows if g.unread]
    if not said:
        return []
    return [
        f"cells not read (a syntax error, say: skipped, and what they define graded as missing) "
        f"in {plural(len(said), 'submission')}: {_first_ten(said)}; each one's feedback names "
        "its cells"
    ]


def _first_ten(names: list[str]) -> str:
    """``names`` for a note: the first ten, then how many more."""
    return ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")


def not_judged(rows: list[Graded]) -> list[str]:
    """Each submission with exercises the grader could not judge (its sandbox did not start,
    twice, the second time a fresh one): their points are 0 in this table, not the student's
    doing, and the instructor is told how to grade them again."""
    said = []
    for g in rows:
        names = [r.exercise for r in g.results if r.mistake == NOT_JUDGED]
        if names:
            said.append(
                f"not judged: {one_line(g.student)}/{g.assignment}: {', '.join(names)} (the "
                "grader's sandbox did not start, or the machine was too busy to measure a "
                "call's memory; not the student's code): grade it again with "
                f"--student {one_line(shlex.quote(g.student))} "
                f"--assignment {shlex.quote(g.assignment)}"
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
        f"lateness not checked (no readable timestamp.txt) for "
        f"{plural(len(unchecked), 'submission')}: {_first_ten(unchecked)}"
    ]


def changes(before: dict[tuple[str, str], Graded], rows: list[Graded]) -> list[str]:
    """What a regrade changed: each submission whose status or total is not what it was."""
    said = []
    for g in rows:
        old = before.get((g.student, g.assignment))
        if old is None or (old.status, round(old.total, 6)) == (g.status, round(g.total, 6)):
            continue
        said.append(
            f"changed: {one_line(g.student)}/{g.assignment}: {old.status}, {old.total:g} -> "
            f"{g.status}, {g.total:g} (of {g.max_points:g})"
        )
    return said

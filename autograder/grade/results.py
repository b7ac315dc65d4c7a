"""What grading a class produces, and the course's assignments as its table lays them out.

A :class:`GradeTable` holds one :class:`Graded` per student and assignment, each with a status
(``STATUSES``). ``grading.py`` fills it; ``outputs/`` writes it (the CSV, the feedback,
the class report, the LMS exports). An assignment is a lesson's released folder
(``04_softmax_masks`` is lesson 04), and its columns follow the notebook's order.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from autograder.core.items import lesson_items
from autograder.core.result import Result
from autograder.grade import RELEASE
from autograder.i18n import N_, _, ngettext
from autograder.sandbox.protocol import one_line

# What the table says about each student and assignment, besides the points.
GRADED = "graded"  # judged; on time, or no due date or no time to compare with
LATE = "late"  # judged, and submitted after the due date (a penalty only if one is given)
BLANK = "blank"  # readable, but not one exercise or question of the assignment attempted
UNREADABLE = "unreadable"  # there is something, but it cannot be read as a notebook
NOT_SUBMITTED = "not-submitted"  # no submission for this assignment
STATUSES = (GRADED, LATE, BLANK, UNREADABLE, NOT_SUBMITTED)

# The status ids (the CSV's values, JSON's) as a person reads them.
WORDS = {
    # TRANSLATORS: a submission's status, as a feedback page and the class report show it
    GRADED: N_("graded"),
    # TRANSLATORS: a submission's status: handed in after the due date
    LATE: N_("late"),
    # TRANSLATORS: a submission's status: nothing of the assignment attempted
    BLANK: N_("blank"),
    # TRANSLATORS: a submission's status: it cannot be read as a notebook
    UNREADABLE: N_("unreadable"),
    # TRANSLATORS: a submission's status: nothing handed in
    NOT_SUBMITTED: N_("not-submitted"),
}
COUNTED = {
    GRADED: N_("{n} graded"),
    LATE: N_("{n} late"),
    BLANK: N_("{n} blank"),
    UNREADABLE: N_("{n} unreadable"),
    NOT_SUBMITTED: N_("{n} not-submitted"),
}


# What a changed name ends with: ``-`` and 16 hex digits of its original's sha256 (64 bits: no
# one finds another name with a classmate's in any time). A name that already ends so is changed
# too, so no name is another's changed form (red team round 26: ``zo_-2752b886`` was ``zoë``'s).
CHANGED = re.compile(r"-[0-9a-f]{16}\Z")


def safe_name(name: str) -> str:
    """A file name for a student or assignment: letters and digits of any script (a student
    张伟's feedback goes to 张伟/, where `nbgrader release_feedback` looks for it), ``.``, ``_``
    and ``-`` (never first); no space, control, invisible or bidirectional character. A plain
    name stays as it is; one that had to change, or that ends like a changed one (``CHANGED``),
    gets a digest of the original: two names never share a file."""
    safe = re.sub(r"[^\w.-]", "_", name).lstrip(".-") or "_"
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
INTERRUPTED = N_(
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
    notes: list[str] = field(default_factory=list)  # the judge's: what was ignored, cells not read
    error: str | None = None  # why the submission could not be graded at all
    submitted: datetime | None = None  # from nbgrader's timestamp.txt (UTC)
    penalty: float = 0.0  # points taken off for lateness
    # Recorded with the submission, so that a regrade keeps them until the instructor gives
    # others: the due date it was held to (UTC) and the fraction of its points a late one loses.
    due: datetime | None = None
    late_penalty: float = 0.0
    # the zone the due date was given in, as written ("Asia/Shanghai", "+0800"; None: UTC): its
    # times are shown in it (messages.when)
    due_zone: str | None = None
    # Items whose points an instructor set in formgrader (nbgrader's manual_score), with the
    # grader's own points for each: the gradebook's score wins everywhere (see gradebook.py).
    manual: dict[str, float] = field(default_factory=dict)
    unread: int = 0  # cells of the notebook the grader could not read (a syntax error...)
    # why its timestamp.txt could not be read (lateness not checked); the feedback's notes on it
    # and on lateness are made from these fields when shown (autograder/grade/messages.py)
    timestamp_problem: str | None = None
    others: list[str] = field(default_factory=list)  # other notebooks in its folder, not graded

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
        """What ``grade`` prints (in the current language)."""
        return summary(self)


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


# -- what a person reads of them (autograder/grade/messages.py: the notes) -------------------------
def status(name: str) -> str:
    """A status id (``late``) as a person reads it; an unknown one as it is."""
    return _(WORDS[name]) if name in WORDS else name


def listed(parts: list[str]) -> str:
    """Items of a list, one after another ("4 graded, 1 late")."""
    # TRANSLATORS: what separates the items of a list ("4 graded, 1 late")
    return _(", ").join(parts)


def counts(rows: list[Graded]) -> str:
    """How many rows have each status: ``4 graded, 1 late, 1 blank``."""
    said = [(s, sum(g.status == s for g in rows)) for s in STATUSES]
    return listed([_(COUNTED[s]).format(n=n) for s, n in said if n])


def did_you_mean(close: list[str]) -> str:
    """'; did you mean NAME?' for a close match, or nothing."""
    return _("; did you mean {name}?").format(name=close[0]) if close else ""


def _closest_assignment(folder: str) -> str:
    """:func:`did_you_mean` for a folder named like an assignment (``04-softmax-masks``: its
    student was told "nothing submitted"; instructor trial 50)."""
    return did_you_mean(difflib.get_close_matches(Path(folder).name, sorted(released()), n=1))


def summary(table: GradeTable) -> str:
    """What ``grade`` prints when the class is graded."""
    graded = _students_assignments(table)
    head = (
        _("Regraded {graded}, the table's other rows kept -> {out} (feedback in {feedback}/): ")
        if table.regraded
        else _("Graded the class: {graded} -> {out} (feedback in {feedback}/): ")
    )
    text = head.format(graded=graded, out=table.out, feedback=table.feedback_dir) + counts(
        table.rows
    )
    not_one = _("  ignored {folder}: not an assignment of the course")
    ignored = [not_one.format(folder=one_line(p)) + _closest_assignment(p) for p in table.ignored]
    # TRANSLATORS: an output written and where ("  class report: grades/grades_report.html")
    written = [
        _("  {output}: {path}").format(output=_(name), path=path)
        for name, path in table.outputs.items()
    ]
    said = [_("  note: {note}").format(note=note) for note in table.notes]
    manual = sum(len(g.manual) for g in table.rows)
    if manual:
        said.append(
            ngettext(
                "  {n} score set in formgrader (the gradebook's manual scores) in every output, "
                "marked as the instructor's",
                "  {n} scores set in formgrader (the gradebook's manual scores) in every output, "
                "marked as the instructor's",
                manual,
            ).format(n=manual)
        )
    return "\n".join([text, *ignored, *written, *said, *filter(None, [table.gradebook])])


def _students_assignments(table: GradeTable) -> str:
    students, assignments = len(table.students()), len({g.assignment for g in table.rows})
    return listed(
        [
            ngettext("{n} student", "{n} students", students).format(n=students),
            ngettext("{n} assignment", "{n} assignments", assignments).format(n=assignments),
        ]
    )

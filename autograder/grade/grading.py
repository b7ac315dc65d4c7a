"""Grade a whole class: ``SUBMISSIONS_DIR/<student>/<assignment>/<notebook>.ipynb``.

An assignment is a lesson (``04_softmax_masks`` is lesson 04). Each submission is scored only on
its own lesson's exercises and questions, so the maximum of an assignment is fixed by the course,
never by what a submission defines; whatever else it defines is ignored, with a note. Each one is
judged in its own sandbox (a broken or hostile one fails only its own exercises); several are
judged at once; nothing under ``SUBMISSIONS_DIR`` is written, and no symbolic link in it is
followed.

The result is a :class:`~autograder.grade.results.GradeTable` that ``autograder/grade/outputs/``
writes: a CSV with one row per student and assignment (a status, see ``STATUSES``; the points of
each exercise and question, ``answer_<id>``, in notebook order; the assignment's total and
maximum; the submission's time), feedback per student and assignment that names only the
learner's own file, a class report and LMS exports. Grading is deterministic: a re-run gives the
same table. ``students``/``assignments`` regrade a subset and update the existing table in place.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from autograder.core.assignment import assignment, judge_assignment
from autograder.core.extract import ExtractError, from_file, read_submission
from autograder.core.result import NOT_JUDGED
from autograder.grade.due import DueDates, read_timestamp
from autograder.grade.here import run_here
from autograder.grade.messages import (
    TIMESTAMP,
    changes,
    due_unlike_kept,
    held_to,
    held_to_recorded,
    lateness_unchecked,
    not_judged,
    other_notebooks,
    tampered,
    unread_cells,
)
from autograder.grade.options import check_options
from autograder.grade.options import due_dates as due_dates  # where tests and tools find it
from autograder.grade.options import parse_due as parse_due
from autograder.grade.outputs import details
from autograder.grade.outputs.table import read_table
from autograder.grade.outputs.write import sibling, uninterrupted, write_outputs
from autograder.grade.results import (
    BLANK,
    GRADED,
    LATE,
    NOT_SUBMITTED,
    UNREADABLE,
    Graded,
    GradeError,
    GradeTable,
    did_you_mean,
    lesson_of,
    notebook_order,
)
from autograder.i18n import N_, _
from autograder.sandbox.host.bwrap import strong_isolation_available, why_unavailable
from autograder.sandbox.host.pool import isolated

WEAK_SANDBOX = N_(
    "the strong sandbox (bubblewrap) cannot run here: {why}. Without it, learner code would run "
    "with process isolation only, where a hostile submission can read other students' work and "
    "the course's answers, or change the grade table. Fix that (where bubblewrap is missing, as "
    "root: apt-get install -y bubblewrap), or pass --allow-weak-sandbox to grade anyway, at that "
    "risk."
)


# -- reading the submissions folder, without following links ----------------------------------
def folder_entries(folder: Path) -> list[os.DirEntry]:
    with os.scandir(folder) as it:
        return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)


# Why a submission is not read, kept in English (``Graded.error``) and said in the reader's
# language where it is shown (``messages.error``).
LINKED_STUDENT = N_("your submission folder is a symbolic link, which the grader does not follow")
LINKED_ASSIGNMENT = N_("the assignment folder is a symbolic link, which the grader does not follow")
NO_NOTEBOOK = N_("the assignment folder has no notebook")


@dataclass
class SubmissionFolder:
    path: Path | None = None  # the student's folder for this assignment
    refused: str | None = None  # why it is not read


def find_submissions(root: Path) -> tuple[dict[str, dict[str, SubmissionFolder] | str], list[str]]:
    """``{student: {assignment: folder}}`` (or, for a student, why their folder is refused) and
    the folders that are not assignments of the course."""
    if not root.is_dir():
        try:  # a typo, "submited": the folder beside it it was meant to be (an instructor trial)
            beside = [e.name for e in folder_entries(root.parent) if e.is_dir()]
        except OSError:
            beside = []
        close = difflib.get_close_matches(root.name, beside, n=1)
        raise GradeError(
            _(
                "{folder}: no such folder{suggestion}. Give the folder with one folder per student."
            ).format(folder=root, suggestion=did_you_mean([str(root.parent / c) for c in close]))
        )
    students: dict[str, dict[str, SubmissionFolder] | str] = {}
    ignored = []
    for entry in folder_entries(root):
        if entry.is_symlink():
            students[entry.name] = LINKED_STUDENT
            continue
        if not entry.is_dir(follow_symlinks=False):
            continue
        folders = students.setdefault(entry.name, {})
        for sub in folder_entries(Path(entry.path)):
            if lesson_of(sub.name) is None:
                if sub.is_dir(follow_symlinks=False):
                    ignored.append(f"{entry.name}/{sub.name}")
            elif sub.is_symlink():
                folders[sub.name] = SubmissionFolder(refused=LINKED_ASSIGNMENT)
            elif sub.is_dir(follow_symlinks=False):
                folders[sub.name] = SubmissionFolder(Path(sub.path))
    if not students:
        raise GradeError(
            _(
                "{folder}: no student folders found. Expected SUBMISSIONS_DIR/<student>/"
                "<assignment>/<notebook>.ipynb, as nbgrader lays out submitted/."
            ).format(folder=root)
        )
    return students, ignored


def notebooks_in(folder: Path) -> list[str]:
    """The names of the notebooks in an assignment folder, sorted."""
    return [e.name for e in folder_entries(folder) if e.name.endswith(".ipynb")]


def find_notebook(
    folder: Path, name: str, notebooks: list[str] | None = None
) -> tuple[Path | None, str | None]:
    """The notebook to grade in an assignment folder (``<assignment>.ipynb`` first), or why none;
    ``notebooks``: the folder's, listed already (:func:`notebooks_in`)."""
    if notebooks is None:
        notebooks = notebooks_in(folder)
    if f"{name}.ipynb" in notebooks:
        return folder / f"{name}.ipynb", None
    if len(notebooks) == 1:
        return folder / notebooks[0], None
    if not notebooks:
        return None, None
    return None, (
        f"{len(notebooks)} notebooks ({', '.join(notebooks)}) and none named {name}.ipynb: "
        "the grader cannot tell which one to grade"
    )


def _submitted(folder: Path) -> tuple[datetime | None, str | None]:
    """The time in nbgrader's ``timestamp.txt`` (UTC), or why it could not be read."""
    if not os.path.lexists(folder / TIMESTAMP):
        return None, None
    try:  # the format nbgrader writes, read strictly (due.read_timestamp: never a path)
        return read_timestamp(read_submission(folder / TIMESTAMP, limit=200)), None
    except (ExtractError, ValueError, OverflowError, TypeError) as e:
        return None, str(e)


def lateness(graded: Graded, due_date: datetime | None, late_penalty: float) -> None:
    """Hold a judged submission to its due date: late, and its penalty (the notes that say so
    are made from these fields where they are shown: ``messages.notes``)."""
    graded.due, graded.late_penalty = due_date, late_penalty
    if graded.status != GRADED or due_date is None or graded.submitted is None:
        return
    if graded.submitted > due_date:
        graded.status = LATE
        graded.penalty = round(late_penalty * graded.total, 6)


# -- grading -----------------------------------------------------------------------------------
def grade_one(
    student: str,
    name: str,
    folder: SubmissionFolder | str | None,
    due: datetime | None,
    time_limit: float | None = None,
    late_penalty: float = 0.0,
    allow_weak_sandbox: bool = False,
) -> Graded:
    """One student's submission of one assignment; never raises. A late one loses the fraction
    ``late_penalty`` of its points.

    It is judged in this thread's sandbox, kept from one submission to the next but never shared
    by two at once, and reset between them (every process killed, its files emptied): starting
    a sandbox per submission costs seconds of CPU each (see SECURITY.md)."""
    work = assignment(lesson_of(name))
    graded = Graded(student, name, NOT_SUBMITTED, work.max_points, due=due)
    graded.late_penalty = late_penalty
    if isinstance(folder, str) or (folder is not None and folder.refused):
        graded.status, graded.error = (
            UNREADABLE,
            folder if isinstance(folder, str) else folder.refused,
        )
        return graded
    if folder is None:
        return graded
    try:
        notebooks = notebooks_in(folder.path)  # listed once: the one graded and the others
        path, why = find_notebook(folder.path, name, notebooks)
        if why:
            graded.status, graded.error = UNREADABLE, why
            return graded
        if path is None:
            graded.error = NO_NOTEBOOK
            return graded
        graded.notebook = path.name
        # a copy holding the work beside an untouched one (trial 50)
        graded.others = [n for n in notebooks if n != path.name]
        graded.submitted, graded.timestamp_problem = _submitted(folder.path)
        code = from_file(path, label=path.name)
        with isolated(allow_weak=allow_weak_sandbox, fresh=False):
            results, notes = judge_assignment(code, work, time_limit=time_limit)
        if any(r.mistake == NOT_JUDGED for r in results):  # the grader's fault: once more
            with isolated(allow_weak=allow_weak_sandbox, fresh=True):
                results, notes = judge_assignment(code, work, time_limit=time_limit)
    except ExtractError as e:
        graded.status, graded.error = UNREADABLE, str(e)
        return graded
    except Exception as e:  # never let one submission stop the class
        graded.status = UNREADABLE
        detail = str(e).replace(str(folder.path), name)  # never a server path in feedback
        graded.error = f"the grader failed on this notebook: {type(e).__name__}: {detail}"
        return graded
    order = notebook_order(work.lesson)
    graded.results = sorted(results, key=lambda r: order.index(r.exercise))
    graded.notes += notes
    graded.unread = len(code.problems)
    graded.status = GRADED if any(r.attempted for r in results) else BLANK
    lateness(graded, due, late_penalty)
    return graded


def grade_class(
    submissions: str | Path,
    out: str | Path,
    *,
    workers: int = 2,
    time_limit: float | None = None,
    students: list[str] | None = None,
    assignments: list[str] | None = None,
    due: list[str] | None = None,
    config: str | Path | None = "nbgrader_config.py",
    allow_weak_sandbox: bool = False,
    late_penalty: float | None = None,
    feedback_dir: str | Path | None = None,
    run: Callable[..., list[Graded]] | None = None,
    gradebook=None,
) -> GradeTable:
    """Grade the class (or just ``students`` and ``assignments``, updating the table ``out``).

    The feedback goes under ``feedback_dir`` (default: ``<out stem>_feedback`` beside ``out``);
    see :func:`autograder.grade.outputs.write.write_outputs` for everything written. ``run(tasks,
    allow_weak=...)`` grades the tasks elsewhere (``grade_one(*task)`` each, the results in
    order), e.g. on a Dask cluster (``autograder.grade.cluster.on_cluster(address)``), whose
    workers are checked for the strong sandbox there: this machine then runs no learner code.

    Due dates: ``due`` (``[ASSIGNMENT=]DATE``) wins over ``config``'s ``c.Autograder.due_dates``,
    which wins over the ``gradebook``'s (``nbgrader db assignment add --duedate``); a submission
    none of them dates keeps the due date and ``late_penalty`` it was graded with before (recorded
    in ``<out stem>_results.json``), so a regrade never drops a penalty (``late_penalty=None``:
    the recorded one, 0 for a first grade). Every change of status or total is said in the
    table's notes.

    ``gradebook`` (a :class:`~autograder.grade.nbgrader_gradebook.CourseGradebook`): the scores
    are written into it, then every output is computed from what it holds: an instructor's manual
    scores and the late penalties it records win over the grader's (see
    :mod:`autograder.grade.nbgrader_gradebook`)."""
    if run is None and not allow_weak_sandbox and not strong_isolation_available():
        raise GradeError(_(WEAK_SANDBOX).format(why=why_unavailable()))
    dates = check_options(due, config, late_penalty, assignments)
    if gradebook is not None and None not in dates:  # a date given for all wins over it
        zones = dates.zones  # the gradebook's are UTC: nbgrader keeps no zone
        dates = DueDates({**gradebook.due_dates(), **dates})
        dates.zones = zones
    root = Path(submissions).resolve()
    found, ignored = find_submissions(root)
    names = assignments or sorted({a for f in found.values() if isinstance(f, dict) for a in f})
    if not names:
        raise GradeError(
            _(
                "{folder}: no assignment folders found. Expected SUBMISSIONS_DIR/<student>/"
                "<assignment>/<notebook>.ipynb, as nbgrader lays out submitted/, with "
                "assignments named after the lessons (04_softmax_masks)."
            ).format(folder=root)
        )
    who = students or sorted(found)
    out = Path(out)
    regrading = bool(students or assignments)
    keep = [
        r
        for r in (read_table(out) if regrading else [])
        if not (r["student"] in who and r["assignment"] in names)
    ]
    before = {(g.student, g.assignment): g for g in details.load(sibling(out, "_results.json"))}
    known = set(found) | {student for student, _name in before}
    for student in [s for s in students or [] if s not in known]:  # a typo: no row made up
        close = difflib.get_close_matches(student, sorted(known), n=1)
        said = _(
            "--student {student}: no such student ({folder} has no folder {student}/ and the "
            "table has no row for them)"
        ).format(student=student, folder=root)
        raise GradeError(said + did_you_mean(close))
    tasks, zones = [], {}
    for student in who:
        folders = found.get(student, {})
        for name in names:
            folder = folders if isinstance(folders, str) else folders.get(name)
            earlier = before.get((student, name))
            given = name if name in dates else None
            due_date = dates.get(given)
            zones[student, name] = getattr(dates, "zones", {}).get(given)
            if due_date is None and earlier is not None:
                due_date = earlier.due  # recorded: kept until the instructor gives another
                zones[student, name] = earlier.due_zone  # and shown in the zone it was given in
            penalty = late_penalty
            if penalty is None:
                penalty = earlier.late_penalty if earlier is not None else 0.0
            tasks.append((student, name, folder, due_date, time_limit, penalty, allow_weak_sandbox))
    if run is None:
        rows = run_here(tasks, workers, grade_one)
    else:
        rows = run(tasks, allow_weak=allow_weak_sandbox)
    for g in rows:  # the zone is for showing the due date: the judging needs none
        g.due_zone = zones.get((g.student, g.assignment)) if g.due is not None else None
    feedback = Path(feedback_dir) if feedback_dir else out.with_name(out.stem + "_feedback")
    table = GradeTable(rows, out, feedback, ignored, submissions=root, regraded=regrading)
    overlay = None
    with uninterrupted() as pressed:
        if gradebook is not None:
            table.gradebook = gradebook.write(table, root).summary()
            overlay = gradebook.overlay
        write_outputs(table, keep, regrading, overlay)
    notes = unread_cells(rows) + other_notebooks(rows) + held_to(dates, names)
    notes += held_to_recorded(dates, rows)
    notes += due_unlike_kept(before, rows)
    notes += changes(before, rows)
    table.notes[:0] = notes + tampered(rows) + not_judged(rows) + lateness_unchecked(rows)
    if pressed:
        table.notes.append(_("Ctrl-C came while the outputs were written: all were written first"))
    return table

"""The ``check`` and ``progress`` verbs: grade one file, or a learner's notebooks lesson by lesson.

Exit status of ``check``: 0 every graded exercise passed, 1 some failed, 2 nothing could be
graded (``progress``: 0 every lesson done, 1 not yet, 2 no notebooks).
"""

from __future__ import annotations

import argparse
import sys

from autograder import i18n
from autograder.i18n import _, enumeration
from autograder.service import client
from autograder.service.client import NO_DAEMON

EXIT_PASSED, EXIT_FAILED, EXIT_UNGRADABLE = 0, 1, 2


def register(verbs: argparse._SubParsersAction) -> None:
    """Add ``check`` to the command line's verbs."""
    check = verbs.add_parser("check", help=_("grade one .py file or .ipynb notebook"))
    check.add_argument("file", metavar="FILE")
    check.add_argument(
        "--only", nargs="+", action="extend", metavar="NAME", help=_("grade just these exercises")
    )
    check.add_argument("--json", action="store_true", help=_("print one JSON object"))
    check.add_argument("--no-daemon", action="store_true", help=_(NO_DAEMON))
    check.set_defaults(main=main)


def register_progress(verbs: argparse._SubParsersAction) -> None:
    """Add ``progress`` to the command line's verbs."""
    progress = verbs.add_parser("progress", help=_("your notebooks' progress, lesson by lesson"))
    progress.add_argument("notebooks", nargs="?", default="notebooks", metavar="NOTEBOOKS_DIR")
    progress.add_argument("--no-daemon", action="store_true", help=_(NO_DAEMON))
    progress.set_defaults(main=progress_main)


def main(args: argparse.Namespace) -> int:
    from autograder.sandbox.host.pool import warm_up

    warm_up()  # torch loads in the sandbox server while the judge reads the file
    # --json: its keys, ids and mistake ids are English; its messages (what a person reads) are
    # in the terminal's language, as the report without --json is (a file of the Chinese
    # edition: in Chinese, unless a language was chosen).
    with i18n.speaking_for(args.file):
        return _check(args)


def _check(args: argparse.Namespace) -> int:
    from autograder.core.loading import loading

    with loading():  # torch
        from autograder.check import report
        from autograder.core.assignment import judge_assignment
        from autograder.core.extract import ExtractError, from_file
        from autograder.core.judge import NothingToGrade, judge_code
        from autograder.core.registry import all_exercises
        from autograder.core.result import printable

    carried: list[str] = []
    notes: list[str] = []
    try:
        code = from_file(args.file)
        work = None if args.only else _lesson_work(args.file, code)
        if work:  # a lesson notebook: what its graded cells grade, as `grade` does
            results, notes = judge_assignment(code, work)
            carried = [n for n in code.names(all_exercises()) if n not in work.items]
        else:
            results = [_unread(r, code) for r in judge_code(code, args.only)]
    except (ExtractError, NothingToGrade) as e:
        if args.json:
            print(report.dumps({"file": args.file, "error": str(e)}))
        print(_("error: {problem}").format(problem=printable(e)), file=sys.stderr)
        return EXIT_UNGRADABLE
    print(report.as_json(args.file, results) if args.json else report.human(args.file, results))
    if carried and not args.json:
        print(
            _(
                "Not graded here: {names}, from earlier lessons (graded in their own "
                "notebooks; add --only NAME to grade one here)."
            ).format(names=enumeration(carried))
        )
    if not args.json:
        for note in notes:
            print(_("Note: {note}.").format(note=note))
    return EXIT_PASSED if all(r.passed for r in results) else EXIT_FAILED


def _unread(result, code):
    """An exercise ``--only`` names that the file does not define because a part of it could not
    be read (a syntax error): the result says so, naming the cell that defines it where one
    does, not "define it"; a NameError that a cell not read may explain says so too."""
    from dataclasses import replace

    from autograder.core.assignment import explain_unread
    from autograder.core.extract import unread

    if result.mistake != "not-defined" or not code.problems:
        return explain_unread(result, code)

    problem = code.unread_definition(result.exercise) or unread(code.problems)
    message = _("{name} was not read: {problems}. Fix that, then check again.").format(
        name=result.exercise, problems=problem
    )
    return replace(result, message=message, mistake=None)


def _lesson_work(file: str, code):
    """A lesson's notebook (``10_interview.ipynb``) is graded on its lesson's assignment, the
    exercises and questions its graded cells grade (``autograder.core.assignment``): the earlier
    lessons' functions its tools cell or drills carry are graded in their own lessons. None for
    any other file, or a notebook that defines nothing of the course (nothing to grade)."""
    from pathlib import Path

    from autograder.core import lesson_folders
    from autograder.core.assignment import assignment
    from autograder.core.registry import all_exercises
    from autograder.questions import QUESTIONS

    path = Path(file)
    if path.suffix != ".ipynb":
        return None
    lesson = _graded_cells_lesson(path) or next(
        (name for name in lesson_folders.lessons() if _copy_of(path.stem, name)), None
    )
    if lesson is None:
        return None
    work = assignment(lesson[:2])
    answers = any(f"answer_{q}" in code.defined for q in QUESTIONS)
    return work if work.items and (answers or code.names(all_exercises())) else None


def _graded_cells_lesson(path) -> str | None:
    """The lesson whose questions the notebook's nbgrader cells grade (``answer_04_1``,
    ``grade_answer_04_1``), whatever the notebook is called: a copy saved as ``我的第04课.ipynb``
    was checked as a plain file, its questions left out of its total (trial 39). None where its
    cells name no lesson's questions, or several lessons'."""
    import re

    from autograder.core import lesson_folders
    from autograder.core.extract import read_notebook, read_submission

    try:
        cells = read_notebook(read_submission(path)).get("cells") or []
        ids = {c["metadata"]["nbgrader"]["grade_id"] for c in cells if _grade_id(c)}
    except Exception:  # from_file has read it: its problems are reported there
        return None
    numbers = {m[1] for i in ids if (m := re.fullmatch(r"(?:grade_)?answer_(\d\d)_\d+", i))}
    lessons = [name for name in lesson_folders.lessons() if name[:2] in numbers]
    return lessons[0] if len(numbers) == len(lessons) == 1 else None


def _grade_id(cell) -> bool:
    nbgrader = cell.get("metadata", {}).get("nbgrader") if isinstance(cell, dict) else None
    return isinstance(nbgrader, dict) and isinstance(nbgrader.get("grade_id"), str)


def _copy_of(stem: str, lesson: str) -> bool:
    """The lesson's notebook, or a copy that keeps its name in front: ``09_efficient-Copy1``
    (JupyterLab's Duplicate), ``09_efficient (1)``, ``09_efficient_mine`` (trial 38: a copy was
    checked as a plain file, and its questions left out of its total)."""
    return stem == lesson or (stem.startswith(lesson) and not stem[len(lesson)].isalnum())


def progress_main(args: argparse.Namespace) -> int:
    from autograder.progress import course_progress, table

    if args.no_daemon:  # the notebooks are then judged here, not asked of the warm grader
        client.turn_off()

    with i18n.speaking_for(args.notebooks):  # as check's FILE
        try:
            progress = course_progress(args.notebooks)
        except FileNotFoundError as e:
            print(_("error: {problem}").format(problem=e), file=sys.stderr)
            return EXIT_UNGRADABLE
        print(table(progress))
    return EXIT_PASSED if all(p.done == p.total for p in progress) else EXIT_FAILED

"""The ``check`` and ``progress`` verbs: grade one file, or a learner's notebooks lesson by lesson.

Exit status of ``check``: 0 every graded exercise passed, 1 some failed, 2 nothing could be
graded (``progress``: 0 every lesson done, 1 not yet, 2 no notebooks).
"""

from __future__ import annotations

import argparse
import json
import sys

from autograder.service import client
from autograder.service.client import NO_DAEMON

EXIT_PASSED, EXIT_FAILED, EXIT_UNGRADABLE = 0, 1, 2


def register(verbs: argparse._SubParsersAction) -> None:
    """Add ``check`` to the command line's verbs."""
    check = verbs.add_parser("check", help="grade one .py file or .ipynb notebook")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--only", nargs="+", metavar="NAME", help="grade just these exercises")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument("--no-daemon", action="store_true", help=NO_DAEMON)
    check.set_defaults(main=main)


def register_progress(verbs: argparse._SubParsersAction) -> None:
    """Add ``progress`` to the command line's verbs."""
    progress = verbs.add_parser("progress", help="your notebooks' progress, lesson by lesson")
    progress.add_argument("notebooks", nargs="?", default="notebooks", metavar="NOTEBOOKS_DIR")
    progress.add_argument("--no-daemon", action="store_true", help=NO_DAEMON)
    progress.set_defaults(main=progress_main)


def main(args: argparse.Namespace) -> int:
    from autograder.check import report
    from autograder.core.extract import ExtractError, from_file
    from autograder.core.judge import NothingToGrade, judge_code
    from autograder.core.result import printable
    from autograder.sandbox.host.pool import warm_up

    warm_up()  # torch loads in the sandbox server while the judge reads the file
    carried: list[str] = []
    try:
        code = from_file(args.file)
        only = args.only
        if not only:
            only, carried = _lesson_scope(args.file, code)
        results = judge_code(code, only)
    except (ExtractError, NothingToGrade) as e:
        if args.json:
            print(json.dumps({"file": args.file, "error": str(e)}))
        print(f"error: {printable(e)}", file=sys.stderr)
        return EXIT_UNGRADABLE
    print(report.as_json(args.file, results) if args.json else report.human(args.file, results))
    if carried and not args.json:
        print(
            f"Not graded here: {', '.join(carried)}, from earlier lessons (graded in their own "
            "notebooks; add --only NAME to grade one here)."
        )
    return EXIT_PASSED if all(r.passed for r in results) else EXIT_FAILED


def _lesson_scope(file: str, code) -> tuple[list[str] | None, list[str]]:
    """A lesson's notebook (``06_multihead.ipynb``) is graded on that lesson's exercises: the
    earlier lessons' functions its tools cell carries are graded in their own lessons. Returns
    ``(exercises to grade or None for all it defines, exercises it defines and skips)``."""
    from pathlib import Path

    from autograder import contract

    path = Path(file)
    if path.suffix != ".ipynb" or path.stem not in contract.lessons():
        return None, []
    defined = code.names(contract.NAMES)
    own = [e.name for e in contract.of_lesson(path.stem) if e.name in defined]
    if not own:
        return None, []
    return own, [n for n in defined if n not in own]


def progress_main(args: argparse.Namespace) -> int:
    from autograder.progress import course_progress, table

    if args.no_daemon:  # the notebooks are then judged here, not asked of the warm grader
        client.turn_off()

    try:
        progress = course_progress(args.notebooks)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_UNGRADABLE
    print(table(progress))
    return EXIT_PASSED if all(p.done == p.total for p in progress) else EXIT_FAILED

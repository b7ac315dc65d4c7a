"""The grader's command line (the course contract):

    python -m autograder check FILE [--only NAME ...] [--json]
    python -m autograder grade SUBMISSIONS_DIR [--out grades.csv] [--workers N]
    python -m autograder progress [NOTEBOOKS_DIR]

Exit status: 0 every graded exercise passed, 1 some failed, 2 nothing could be graded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_PASSED, EXIT_FAILED, EXIT_UNGRADABLE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Grade Attention-from-Scratch exercises, safely, with feedback that names "
        "the mistake.",
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="{check,grade,progress}")
    check = verbs.add_parser("check", help="grade one .py file or .ipynb notebook")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--only", nargs="+", metavar="NAME", help="grade just these exercises")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    grade = verbs.add_parser("grade", help="grade a class laid out as nbgrader's submitted/")
    grade.add_argument("submissions", metavar="SUBMISSIONS_DIR")
    grade.add_argument("--out", default="grades.csv", help="the grade table (default grades.csv)")
    grade.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="submissions graded at once"
    )
    progress = verbs.add_parser("progress", help="your notebooks' progress, lesson by lesson")
    progress.add_argument("notebooks", nargs="?", default="notebooks", metavar="NOTEBOOKS_DIR")
    return parser


def _check(args) -> int:
    from autograder import report
    from autograder.extract import ExtractError, from_file
    from autograder.judge import NothingToGrade, judge_code
    from autograder.sandbox import warm_up

    warm_up()  # torch loads in the sandbox server while the judge reads the file
    try:
        code = from_file(args.file)
        results = judge_code(code, args.only)
    except (ExtractError, NothingToGrade) as e:
        if args.json:
            print(json.dumps({"file": args.file, "error": str(e)}))
        print(f"error: {e}", file=sys.stderr)
        return EXIT_UNGRADABLE
    print(report.as_json(args.file, results) if args.json else report.human(args.file, results))
    return EXIT_PASSED if all(r.passed for r in results) else EXIT_FAILED


def _grade(args) -> int:
    from autograder.grade import GradeError, grade_class

    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return EXIT_UNGRADABLE
    try:
        table = grade_class(args.submissions, args.out, workers=args.workers)
    except GradeError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_UNGRADABLE
    print(table.summary())
    return EXIT_PASSED if table.all_passed() else EXIT_FAILED


def _progress(args) -> int:
    from autograder.progress import course_progress, table

    try:
        progress = course_progress(args.notebooks)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_UNGRADABLE
    print(table(progress))
    return EXIT_PASSED if all(p.done == p.total for p in progress) else EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)  # bad arguments exit 2 with argparse's message
    return {"check": _check, "grade": _grade, "progress": _progress}[args.verb](args)

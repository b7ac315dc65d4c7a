"""The grader's command line (the course contract):

    python -m autograder check FILE [--only NAME ...] [--json]
    python -m autograder grade SUBMISSIONS_DIR [--out grades.csv] [--workers N]
                               [--student NAME ...] [--assignment NAME ...] [--due [A=]DATE ...]
                               [--late-penalty FRACTION] [--feedback-dir DIR]
                               [--allow-weak-sandbox] [--gradebook COURSE_DIR]
                               [--scheduler ADDRESS]
    python -m autograder progress [NOTEBOOKS_DIR]
    python -m autograder drill VERB ...        (the interview trainer: autograder/drill/)

``check`` grades every exercise FILE defines, except that a lesson's notebook
(``06_multihead.ipynb``) is graded on that lesson's exercises only: the earlier lessons'
functions its tools cell carries are graded in their own lessons (``--only`` grades any).

Exit status of ``check``: 0 every graded exercise passed, 1 some failed, 2 nothing could be
graded. Of ``grade``: 0 the class was graded (the table says how each submission did), 2 it
could not be.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_PASSED, EXIT_FAILED, EXIT_UNGRADABLE = 0, 1, 2
NO_DAEMON = (
    "grade in this process, not in the warm grader (autograder/service/; also AUTOGRADER_DAEMON=0)"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Grade Attention-from-Scratch exercises, safely, with feedback that names "
        "the mistake.",
    )
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="{check,grade,progress,drill}"
    )
    check = verbs.add_parser("check", help="grade one .py file or .ipynb notebook")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--only", nargs="+", metavar="NAME", help="grade just these exercises")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument("--no-daemon", action="store_true", help=NO_DAEMON)
    grade = verbs.add_parser(
        "grade",
        help="grade a class laid out as nbgrader's submitted/",
        description="Grade SUBMISSIONS_DIR/<student>/<assignment>/<notebook>.ipynb: one row per "
        "student and assignment, with a status (graded, late, blank, unreadable, not-submitted), "
        "the points of each exercise and question in notebook order, and the assignment's total; "
        "and beside it: feedback per student and assignment (text, and HTML in nbgrader's "
        "feedback/<student>/<assignment>/ layout), a class report (<out stem>_report.html), "
        "Gradescope results.json files (<out stem>_gradescope/) and an LMS gradebook CSV "
        "(<out stem>_lms.csv).",
        epilog="Exit status: 0 when the class was graded, whatever the grades (the table's "
        "status column and points say how each submission did); 2 when it could not be graded "
        "(no such folder, bad arguments, no strong sandbox).",
    )
    grade.add_argument("submissions", metavar="SUBMISSIONS_DIR")
    grade.add_argument("--no-daemon", action="store_true", help=NO_DAEMON)
    grade.add_argument("--out", default="grades.csv", help="the grade table (default grades.csv)")
    grade.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="submissions graded at once on this machine (with --scheduler, the cluster's "
        "worker threads decide)",
    )
    grade.add_argument(
        "--student",
        action="append",
        metavar="NAME",
        help="regrade just this student (repeat for more); the table is updated in place",
    )
    grade.add_argument(
        "--assignment",
        action="append",
        metavar="NAME",
        help="regrade just this assignment, e.g. 04_softmax_masks (repeat for more); the table "
        "is updated in place",
    )
    grade.add_argument(
        "--due",
        action="append",
        metavar="[ASSIGNMENT=]DATE",
        help="due date, e.g. '2026-12-01 23:59 UTC' (for every assignment) or "
        "'04_softmax_masks=2026-12-01 23:59 UTC'; a submission whose nbgrader timestamp.txt is "
        "later is reported as late (see --late-penalty). Also read from the current folder's "
        "nbgrader_config.py: "
        "c.Autograder.due_dates = {'04_softmax_masks': '2026-12-01 23:59 UTC'}",
    )
    grade.add_argument(
        "--late-penalty",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="a late submission loses this fraction of its points, e.g. 0.1 (default 0: late "
        "submissions are only reported)",
    )
    grade.add_argument(
        "--feedback-dir",
        metavar="DIR",
        help="where the feedback goes (default: <out stem>_feedback beside the table): "
        "DIR/<student>/<assignment>.txt and DIR/<student>/<assignment>/<notebook>.html; give "
        "your nbgrader course's feedback folder for `nbgrader release_feedback` to hand the "
        "pages out",
    )
    grade.add_argument(
        "--allow-weak-sandbox",
        action="store_true",
        help="grade even where learner code cannot be isolated by the operating system "
        "(no bubblewrap): a hostile submission could then read other students' work or change "
        "the grade table",
    )
    grade.add_argument(
        "--gradebook",
        metavar="COURSE_DIR",
        help="also write the scores into this nbgrader course's gradebook (its gradebook.db, or "
        "the db_url of its nbgrader_config.py; a .db file works too), for formgrader, "
        "`nbgrader export` and feedback; manual scores given in formgrader are kept",
    )
    grade.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="grade on this Dask distributed cluster (e.g. tcp://10.0.0.5:8786, as `dask "
        "scheduler` prints it): each submission is one task, graded in the sandbox of a worker "
        "that has the course and bubblewrap installed; the submissions travel with the tasks",
    )
    progress = verbs.add_parser("progress", help="your notebooks' progress, lesson by lesson")
    progress.add_argument("notebooks", nargs="?", default="notebooks", metavar="NOTEBOOKS_DIR")
    progress.add_argument("--no-daemon", action="store_true", help=NO_DAEMON)
    # main() hands `drill` to the trainer before parsing; listed here so that --help shows it.
    verbs.add_parser("drill", help="interview practice: `python -m autograder drill --help`")
    return parser


def _check(args) -> int:
    from autograder import report
    from autograder.extract import ExtractError, from_file
    from autograder.judge import NothingToGrade, judge_code, printable
    from autograder.sandbox import warm_up

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


def _grade(args) -> int:
    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return EXIT_UNGRADABLE
    if not args.scheduler:  # on a cluster, this machine runs no learner code
        from autograder._pool import start_ahead  # imports no torch: the sandboxes start first

        start_ahead(args.workers, allow_weak=args.allow_weak_sandbox)
    from autograder.grade import GradeError, grade_class
    from autograder.gradebook import CourseGradebook

    try:
        book = args.gradebook and CourseGradebook.of(args.gradebook)
        if book:  # refused before grading, not after
            book.check(args.submissions, args.assignment)
        run = None
        if args.scheduler:
            try:
                from autograder.cluster import on_cluster  # imports dask: only when asked for
            except ImportError as e:
                raise GradeError(
                    f"--scheduler needs dask.distributed ({e}): pip install -r requirements.txt"
                ) from e
            run = on_cluster(args.scheduler)
        table = grade_class(
            args.submissions,
            args.out,
            workers=args.workers,
            students=args.student,
            assignments=args.assignment,
            due=args.due,
            allow_weak_sandbox=args.allow_weak_sandbox,
            late_penalty=args.late_penalty,
            feedback_dir=args.feedback_dir,
            run=run,
        )
        written = book and book.write(table, args.submissions)
    except GradeError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_UNGRADABLE
    print(table.summary())
    if written:
        print(written.summary())
    return EXIT_PASSED  # the class was graded: the table says how each submission did


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
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["drill"]:  # the interview trainer has verbs of its own
        from autograder.drill.cli import main as drill

        return drill(argv[1:])
    args = _parser().parse_args(argv)  # bad arguments exit 2 with argparse's message
    return {"check": _check, "grade": _grade, "progress": _progress}[args.verb](args)

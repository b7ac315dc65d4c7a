"""The ``grade`` verb: grade a class laid out as nbgrader's ``submitted/``.

Exit status: 0 the class was graded (the table says how each submission did), 2 it could not be,
130 Ctrl-C stopped it before anything was written.
"""

from __future__ import annotations

import argparse
import os
import sys

from autograder.i18n import _
from autograder.service.client import NO_DAEMON

EXIT_GRADED, EXIT_UNGRADABLE, EXIT_INTERRUPTED = 0, 2, 130  # 130: as a shell says Ctrl-C


def register(verbs: argparse._SubParsersAction) -> None:
    """Add ``grade`` to the command line's verbs."""
    grade = verbs.add_parser(
        "grade",
        help=_("grade a class laid out as nbgrader's submitted/"),
        description=_(
            "Grade SUBMISSIONS_DIR/<student>/<assignment>/<notebook>.ipynb: one row per student "
            "and assignment, with a status (graded, late, blank, unreadable, not-submitted), the "
            "points of each exercise and question in notebook order, and the assignment's total; "
            "and beside it: feedback per student and assignment (text, and HTML in nbgrader's "
            "feedback/<student>/<assignment>/ layout), a class report (<out stem>_report.html), "
            "Gradescope results.json files (<out stem>_gradescope/), and gradebook CSVs for Moodle "
            "(<out stem>_lms.csv) and Canvas (<out stem>_canvas.csv). With --gradebook, every "
            "output is computed from the gradebook, formgrader's manual scores included."
        ),
        epilog=_(
            "Exit status: 0 when the class was graded, whatever the grades (the table's "
            "status column and points say how each submission did); 2 when it could not be "
            "graded (no such folder, bad arguments, no strong sandbox); 130 when Ctrl-C stopped "
            "it before anything was written."
        ),
    )
    grade.add_argument("submissions", metavar="SUBMISSIONS_DIR")
    grade.add_argument("--no-daemon", action="store_true", help=_(NO_DAEMON))
    grade.add_argument(
        "--out",
        default="grades/grades.csv",
        help=_(
            "the grade table (default grades/grades.csv); everything else is written beside it, "
            "in the same folder, which the course's .gitignore keeps out of git"
        ),
    )
    grade.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help=_(
            "submissions graded at once on this machine (with --scheduler, the cluster's "
            "worker threads decide)"
        ),
    )
    grade.add_argument(
        "--student",
        action="append",
        metavar="NAME",
        help=_("regrade just this student (repeat for more); the table is updated in place"),
    )
    grade.add_argument(
        "--assignment",
        action="append",
        metavar="NAME",
        help=_(
            "regrade just this assignment, e.g. 04_softmax_masks (repeat for more); the table "
            "is updated in place"
        ),
    )
    grade.add_argument(
        "--due",
        action="append",
        metavar="[ASSIGNMENT=]DATE",
        help=_(
            "due date, in any format nbgrader reads, e.g. '2026-12-01 23:59 UTC' or 'Dec 1 "
            "2026 23:59' (for every assignment; a date alone is the midnight that starts it) or "
            "'04_softmax_masks=2026-12-01 23:59 UTC'; a submission "
            "whose nbgrader timestamp.txt is later is reported as late (see --late-penalty). Also "
            "read from the current folder's nbgrader_config.py (c.Autograder.due_dates = "
            "{'04_softmax_masks': '2026-12-01 23:59 UTC'}) and from the gradebook (nbgrader db "
            "assignment add NAME --duedate=...); --due wins. A regrade keeps the due date a "
            "submission was graded with unless one is given"
        ),
    )
    grade.add_argument(
        "--late-penalty",
        default=None,
        metavar="FRACTION",
        help=_(
            "a late submission loses this fraction of its points, e.g. 0.1 or 10%% (default: the "
            "fraction it was graded with before, 0 the first time: late submissions are only "
            "reported)"
        ),
    )
    grade.add_argument(
        "--feedback-dir",
        metavar="DIR",
        help=_(
            "where the feedback goes (default: <out stem>_feedback beside the table): "
            "DIR/<student>/<assignment>.txt and DIR/<student>/<assignment>/<notebook>.html; give "
            "your nbgrader course's feedback folder for `nbgrader release_feedback` to hand the "
            "pages out"
        ),
    )
    grade.add_argument(
        "--allow-weak-sandbox",
        action="store_true",
        help=_(
            "grade even where learner code cannot be isolated by the operating system "
            "(no bubblewrap): a hostile submission could then read other students' work or change "
            "the grade table"
        ),
    )
    grade.add_argument(
        "--gradebook",
        metavar="COURSE_DIR",
        help=_(
            "also write the scores into this nbgrader course's gradebook (its gradebook.db, or "
            "the db_url of its nbgrader_config.py; a .db file works too), for formgrader, "
            "`nbgrader export` and feedback; manual scores given in formgrader are kept"
        ),
    )
    grade.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=_(
            "grade on this Dask distributed cluster (e.g. tcp://10.0.0.5:8786, as `dask "
            "scheduler` prints it): each submission is one task, graded in the sandbox of a worker "
            "that has the course and bubblewrap installed; the submissions travel with the tasks"
        ),
    )
    grade.set_defaults(main=main)


def fraction(text: str | float | None) -> float | None:
    """``--late-penalty``: a fraction of the points (``0.1``) or a percentage (``10%``, ``10 %``,
    ``10％``), 0 to 1; ValueError in the reader's language, saying what to type."""
    if text is None or isinstance(text, float):
        value = text
    else:
        said = str(text).strip()
        percent = said.endswith(("%", "％"))
        try:
            value = float(said.rstrip("%％").strip()) / (100 if percent else 1)
        except ValueError:
            value = float("nan")
    if value is None or 0.0 <= value <= 1.0:
        return value
    raise ValueError(
        _(
            "--late-penalty is a fraction of the points, 0 to 1, or a percentage: e.g. {fraction} "
            "or {percent} for a tenth; got {penalty}"
        ).format(fraction="0.1", percent="10%", penalty=text)
    )


def main(args: argparse.Namespace) -> int:
    if args.workers < 1:
        print(
            _("error: {problem}").format(problem=_("--workers must be at least 1")), file=sys.stderr
        )
        return EXIT_UNGRADABLE
    from autograder.grade.due import DueError, read_dues

    try:  # a bad date or an unknown assignment is refused before anything starts
        read_dues(args.due)
    except DueError as e:
        print(_("error: {problem}").format(problem=e), file=sys.stderr)
        return EXIT_UNGRADABLE
    try:
        args.late_penalty = fraction(args.late_penalty)
    except ValueError as e:
        print(_("error: {problem}").format(problem=e), file=sys.stderr)
        return EXIT_UNGRADABLE
    from autograder.service import client

    # On a cluster this machine runs no learner code. In the warm grader (autograder/service/)
    # the judge is loaded already and the first notebook takes the grader's own warm sandbox
    # (reset first); a second worker's starts when it takes its first notebook, so that grading
    # one student starts none. Otherwise sandboxes load torch while the judge imports: as many as
    # the cores beside the judge's import, the others when their worker takes its first notebook,
    # beside the first worker's grading, which keeps one core busy (the judge and its sandbox
    # take turns): on 2 cores, 20 lesson-04 notebooks took 7.6-7.8 s so, 8.0-8.4 s with both
    # sandboxes started ahead (three imports on two cores, then the two workers).
    if not args.scheduler and not client.INSIDE:
        from autograder.sandbox.host.pool import start_ahead  # imports no torch

        ahead = min(args.workers, max(1, (os.cpu_count() or 1) - 1))
        start_ahead(ahead, allow_weak=args.allow_weak_sandbox)
    from autograder.core.loading import loading

    with loading():  # torch
        from autograder.grade.grading import grade_class
        from autograder.grade.nbgrader_gradebook import CourseGradebook
        from autograder.grade.results import INTERRUPTED, GradeError

    try:
        book = args.gradebook and CourseGradebook.of(args.gradebook)
        if book:  # refused before grading, not after
            book.check(args.submissions, args.assignment)
        run = None
        if args.scheduler:
            try:
                from autograder.grade.cluster import on_cluster  # imports dask: only when asked for
            except ImportError as e:
                said = _(
                    "--scheduler needs dask.distributed ({why}): pip install -r requirements.txt"
                )
                raise GradeError(said.format(why=e)) from e
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
            gradebook=book or None,
        )
    except GradeError as e:
        print(_("error: {problem}").format(problem=e), file=sys.stderr)
        return EXIT_UNGRADABLE
    except KeyboardInterrupt:  # Ctrl-C, once or more, before the outputs were written
        print(_(INTERRUPTED), file=sys.stderr)
        return EXIT_INTERRUPTED
    print(table.summary())
    return EXIT_GRADED  # the class was graded: the table says how each submission did

"""The grader's command line (the course contract), wired to one package per verb
(``check/cli.py``: check and progress, ``grade/cli.py``, ``drill/cli.py``):

    python -m autograder check FILE [--only NAME ...] [--json]
    python -m autograder grade SUBMISSIONS_DIR [--out grades/grades.csv] [--workers N]
                               [--student NAME ...] [--assignment NAME ...] [--due [A=]DATE ...]
                               [--late-penalty FRACTION] [--feedback-dir DIR]
                               [--allow-weak-sandbox] [--gradebook COURSE_DIR]
                               [--scheduler ADDRESS]
    python -m autograder progress [NOTEBOOKS_DIR]
    python -m autograder drill VERB ...        (the interview trainer: autograder/drill/)

``--lang zh-CN`` (or ``en``), anywhere on the line, chooses the language people read (the
default: ``AUTOGRADER_LANG``, a notebook under ``zh-CN/``, else the locale; ``autograder/i18n.py``).

``check`` grades every exercise FILE defines, except that a lesson's notebook
(``06_multihead.ipynb``) is graded on that lesson's exercises only: the earlier lessons'
functions its tools cell carries are graded in their own lessons (``--only`` grades any).

Exit status of ``check``: 0 every graded exercise passed, 1 some failed, 2 nothing could be
graded. Of ``grade``: 0 the class was graded (the table says how each submission did), 2 it
could not be.
"""

from __future__ import annotations

import argparse
import sys

from autograder import i18n
from autograder.check import cli as check_cli
from autograder.grade import cli as grade_cli
from autograder.i18n import _


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description=_(
            "Grade Attention-from-Scratch exercises, safely, with feedback that names the mistake."
        ),
    )
    parser.add_argument(  # taken out by main() wherever it is; listed here for --help
        "--lang",
        metavar="LANG",
        help=_(
            "the language of the output: zh-CN or en (default: AUTOGRADER_LANG, a notebook "
            "under zh-CN/, else the locale, e.g. LANG=zh_CN.UTF-8)"
        ),
    )
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="{check,grade,progress,drill}"
    )
    check_cli.register(verbs)
    grade_cli.register(verbs)
    check_cli.register_progress(verbs)
    # main() hands `drill` to the trainer before parsing; listed here so that --help shows it.
    verbs.add_parser("drill", help=_("interview practice: `python -m autograder drill --help`"))
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        tag, argv = i18n.split_lang(argv)
        lang = i18n.choose(tag) if tag else None
    except ValueError as e:  # --lang without a language, or one the course does not speak
        print(f"error: {e}", file=sys.stderr)
        return 2
    with i18n.use(lang):
        return _main(argv)


def _main(argv: list[str]) -> int:
    if argv[:1] == ["drill"]:  # the interview trainer has verbs of its own
        from autograder.drill.cli import main as drill

        return drill(argv[1:])
    args = i18n.localise(_parser()).parse_args(argv)  # bad arguments exit 2 with argparse's message
    return args.main(args)

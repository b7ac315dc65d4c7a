"""The learner-style test files of each lesson, found by glob: ``tests/lessons/<L>/``.

A lesson's test folder is named like its grader folder (``autograder/lessons/<L>/``) and holds,
for the exercises of that lesson only:

- ``wrong/<id>[__<variant>].py``: a learner-style wrong implementation that must fail with
  exactly mistake ``<id>`` (its ``# grade: <name>`` line says which exercise); it holds only the
  buggy definition and is judged after the plain style (``BASE``), as a later notebook cell
  overrides an earlier one.
- ``correct/<style>.py``: the lesson's slice of each correct style (``plain``, ``einsum``,
  ``loops``, ``idioms``, ...). A style is every lesson's slice of that name, in lesson order,
  as a learner's notebooks build on each other: a slice may use earlier lessons' definitions.
  The ``plain`` style defines every exercise; the others define the exercises they have (a new
  exercise needs only its ``plain`` slice) and are judged on those.
- ``builtin/<name>[__<variant>].py``: calls what the exercise forbids (``__reference``: the
  course_lib reference) and must be refused.

Adding an exercise touches this one folder; ``tests/test_lesson_files.py`` fails when a file is
left out (the plain style without the exercise, a mistake without a wrong file) or sits in
another lesson's folder.

``tests/submissions/{wrong,builtin}/``, the flat layout before this one, is still read, so that
a branch which added a file there keeps it judged; ``tests/test_lesson_files.py`` names the
lesson folder it must move to.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "tests" / "lessons"


def files(kind: str) -> list[Path]:
    """Every ``<kind>/*.py`` of every lesson (``kind``: wrong, builtin), in name order."""
    found = LESSONS.glob(f"*/{kind}/*.py")
    return sorted(found, key=lambda p: (p.name, str(p)))


WRONG = files("wrong")
BUILTIN = files("builtin")
STYLES = sorted({p.stem for p in LESSONS.glob("*/correct/*.py")})


def slices(style: str) -> list[Path]:
    """The lesson slices of one correct style, in lesson order."""
    return sorted(LESSONS.glob(f"*/correct/{style}.py"))


def style(name: str) -> str:
    """A whole correct style: its lesson slices, in lesson order, as one submission."""
    return "\n\n".join(p.read_text() for p in slices(name))


BASE = style("plain")  # what wrong, builtin and real-world files are judged after


def judge_after_base(code: str, only):
    """``code`` judged as a notebook cell after one that holds the plain style (``BASE``): its
    definitions override the earlier ones, and its lines are numbered from its own first line.
    (The grader reads the same long cell of correct code without a child process each time:
    ``autograder.core.syntax.READ_QUICKLY``.)"""
    from autograder.core.extract import from_sources
    from autograder.core.judge import judge_code

    cells = [("cell [1]", BASE), ("solution.py", code)]
    return judge_code(from_sources("solution.py", cells), only)


def defined(path: Path) -> set[str]:
    """The names a file defines at the top level (functions, classes, assignments)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def style_defines(name: str) -> set[str]:
    """Every name a whole style defines at the top level (its exercises among them)."""
    return set().union(*(defined(p) for p in slices(name)))


def expected_id(path: Path) -> str:
    """The mistake id a wrong file must get: its name up to ``__``."""
    return path.stem.split("__")[0]


def graded_exercise(path: Path) -> str:
    """The exercise of a file's ``# grade: <name>`` line."""
    match = re.search(r"^# grade: (\w+)$", path.read_text(), re.M)
    assert match, f"{path.name} has no '# grade: NAME' line"
    return match.group(1)


def wrong_file(mistake: str) -> Path:
    """The wrong file of a mistake id (its first variant), wherever its lesson is."""
    for path in WRONG:
        if path.stem == mistake:
            return path
    raise LookupError(f"no wrong file {mistake}.py under {LESSONS}")


if __name__ == "__main__":  # python tests/lesson_files.py STYLE > style.py: a whole style, to check
    import sys

    if len(sys.argv) != 2 or sys.argv[1] not in STYLES:
        sys.exit(f"usage: python tests/lesson_files.py STYLE  (one of {', '.join(STYLES)})")
    print(style(sys.argv[1]), end="")

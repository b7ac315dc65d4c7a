"""The contract table, the lesson folders, the solution notebooks and the README say the same.

``autograder/contract.py`` lists each exercise once; everything else is derived from it or checked
against it here: the lesson folders (``autograder/lessons/<L>/``, named like ``solutions/<L>/``),
the questions' prompts (the notebooks' text), the mistakes a notebook cites (each one in the
catalogue, with a learner-style wrong file), the mistakes a lesson owns (each one cited in its
notebook) and the README's lesson table (written by ``scripts/release.py``).
``tests/test_notebooks.py`` checks that each notebook grades exactly the table's exercises of its
lesson.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
from lesson_files import WRONG, expected_id

from autograder import contract
from autograder.core import lesson_folders
from autograder.core.mistakes import GENERIC_IDS, MISTAKES, by_lesson
from autograder.questions import QUESTIONS

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
AUTOGRADER = ROOT / "autograder"
NOTEBOOK_LESSONS = sorted(
    p.name
    for p in SOLUTIONS.iterdir()
    if (p / f"{p.name}.ipynb").is_file() and p.name[:2].isdigit()
)


def notebook(lesson: str):
    return nbformat.read(SOLUTIONS / lesson / f"{lesson}.ipynb", as_version=4)


def markdown(lesson: str) -> str:
    return "\n".join(c.source for c in notebook(lesson).cells if c.cell_type == "markdown")


def plain(text: str) -> str:
    """Notebook markdown as plain text: no emphasis, code marks, LaTeX or bullets."""
    text = re.sub(r"^\s*- ", "", text, flags=re.M)
    text = re.sub(r"\\mathcal\{(\w)\}", r"\1", text)
    text = re.sub(r"\\sqrt\{([^}]*)\}", r"sqrt(\1)", text)
    text = text.replace("\\cdot", "·").replace("`", "").replace("$", "")
    return " ".join(text.split())


def cited(lesson: str) -> set[str]:
    """The ``[mistake-id]`` a lesson's notebook cites."""
    return set(re.findall(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]", markdown(lesson)))


# ---- the table and the lesson folders ------------------------------------------------------------


def test_the_table_lists_each_exercise_once_with_points_and_a_lesson_folder():
    assert len(contract.NAMES) == len(set(contract.NAMES)) == len(contract.CONTRACT)
    assert len(contract.CONTRACT) >= 25
    for e in contract.CONTRACT:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+", e.lesson), e
        assert e.points in (1, 2), e
        assert e.reference.startswith("course_lib.") and e.reference.endswith(":" + e.name), e
        assert (AUTOGRADER / "lessons" / e.lesson / "checks.py").is_file(), e
    lessons_in_order = [e.lesson for e in contract.CONTRACT]
    assert lessons_in_order == sorted(lessons_in_order), "the table is in course order"


def test_lesson_folders_are_discovered_and_named_like_their_solutions_folder():
    folders = lesson_folders.lessons()
    assert set(contract.lessons()) <= set(folders)
    for folder in folders:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+", folder), folder
        number_twins = [s.name for s in SOLUTIONS.iterdir() if s.name[:3] == folder[:3]]
        assert number_twins in ([], [folder]), f"lessons/{folder} but solutions/{number_twins}"
    for lesson in NOTEBOOK_LESSONS:
        assert lesson in folders, f"solutions/{lesson} has no autograder/lessons/{lesson}/"
    for folder in folders:  # a folder with checks checks only what the table gives it
        if (AUTOGRADER / "lessons" / folder / "checks.py").is_file():
            assert folder in contract.lessons(), f"lessons/{folder}/checks.py: not in the table"


def test_each_lessons_mistakes_are_first_diagnosed_in_that_lesson():
    order = list(lesson_folders.lessons())
    for lesson, mistakes in by_lesson().items():
        for m in mistakes:
            first = min((contract.BY_NAME[x].lesson for x in m.exercises), key=order.index)
            assert first == lesson, f"{m.id} belongs in lessons/{first}/mistakes.py, not {lesson}"


def test_modules_stay_small_except_data_tables():
    """One job per module: every module of the grader, the course library and the scripts stays
    under ~400 lines (a data table, such as a catalogue, would be named here as the exception)."""
    owned = [
        p for top in ("autograder", "course_lib", "scripts") for p in (ROOT / top).rglob("*.py")
    ]
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in owned}
    assert len(sizes) > 50, "the modules were not found"
    # Each lesson's catalogue of mistakes (lessons/<L>/mistakes.py) is a data table: one row per
    # mistake, no logic; it may grow to twice the size before it must be split.
    tables = {p for p in sizes if re.fullmatch(r"autograder/lessons/[^/]+/mistakes\.py", p)}
    assert tables, "the catalogues were not found"
    assert not {p: n for p, n in sizes.items() if n > (840 if p in tables else 420)}, sizes


def _imports(path: Path, package: str) -> tuple[set[str], set[str]]:
    """What a module names in its imports, and what importing those runs first (the packages
    above each: importing a.b.c runs a/__init__ and a/b/__init__ first)."""
    named = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            named.add(node.module)
            named |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            named |= {a.name for a in node.names}
    named = {m for m in named if m.split(".")[0] == package}
    above = {m.rsplit(".", k)[0] for m in named for k in range(1, m.count(".") + 1)}
    return named, above - named


def test_package_init_files_hold_no_logic():
    """A package's ``__init__.py`` holds its docstring, imports and constants, never a function,
    a class or a statement that computes (the logic lives in a named module)."""
    for path in sorted(AUTOGRADER.rglob("__init__.py")):
        for node in ast.parse(path.read_text()).body:
            plain = isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            )
            assert plain, f"{path.relative_to(ROOT)}:{node.lineno}: move this into a module"


def test_the_grader_has_no_import_circle():
    """No circle, between modules or between a package's ``__init__`` and its own submodules: a
    submodule that names its own package in an import (``from autograder.kit import x`` inside
    ``autograder/kit/``) is an edge like any other. Only the packages Python runs above a module
    while importing it (its own, already importing) are not."""
    modules = {}
    for path in AUTOGRADER.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph = {}
    for m, p in modules.items():
        named, above = _imports(p, "autograder")
        own = {i for i in above if f"{m}.".startswith(i + ".")}
        graph[m] = {i for i in named | (above - own) if i in modules and i != m}

    done: set[str] = set()

    def visit(m: str, stack: list[str]) -> list[str] | None:
        if m in stack:
            return stack[stack.index(m) :] + [m]
        if m in done:
            return None
        for n in sorted(graph[m]):
            circle = visit(n, stack + [m])
            if circle:
                return circle
        done.add(m)
        return None

    for m in sorted(graph):
        circle = visit(m, [])
        assert circle is None, " -> ".join(circle)


# ---- what the notebooks say ------------------------------------------------------------------


@pytest.mark.parametrize("lesson", NOTEBOOK_LESSONS)
def test_question_prompts_are_the_notebooks_text(lesson):
    asked = {}
    for cell in notebook(lesson).cells:
        m = re.search(r"\*\*Question (\d\d)\.(\d+)\.\*\*(.*)", cell.source, re.S)
        if cell.cell_type == "markdown" and m:
            asked[f"{m[1]}_{m[2]}"] = plain(m[3])
    ours = {qid: q.prompt for qid, q in QUESTIONS.items() if qid[:2] == lesson[:2]}
    assert set(asked) == set(ours), f"{lesson}: the notebook asks {sorted(asked)}"
    for qid, prompt in ours.items():
        assert prompt == asked[qid], f"{qid}: the prompt differs from the notebook's text"


@pytest.mark.parametrize("lesson", NOTEBOOK_LESSONS)
def test_every_cited_mistake_exists_and_has_a_wrong_file(lesson):
    wrong = {expected_id(p) for p in WRONG}
    for mistake in cited(lesson):
        assert mistake in MISTAKES, f"{lesson} cites [{mistake}], which is not in the catalogue"
        if mistake not in GENERIC_IDS:  # the mutation gate checks that the file gets this id
            assert mistake in wrong, f"[{mistake}]: no tests/lessons/<L>/wrong/{mistake}.py"


@pytest.mark.parametrize("lesson", NOTEBOOK_LESSONS)
def test_every_mistake_of_a_lesson_is_cited_in_its_notebook(lesson):
    """Its own mistakes, and every other id one of its exercises can be named (trial 11: a
    learner told to open the list did not find [gradient-path-detached] in lesson 05's)."""
    own = {m.id for m in by_lesson().get(lesson, ())}
    names = {e.name for e in contract.of_lesson(lesson)}
    shown = {m.id for m in MISTAKES.values() if names & set(m.exercises)}
    uncited = (own | shown) - cited(lesson)
    assert not uncited, f"{lesson}'s notebook does not cite {sorted(uncited)}"


# ---- the README --------------------------------------------------------------------------------


def test_readme_lesson_table_is_what_a_release_writes():
    """README.md's lesson table is generated (``scripts/release.py``) from the notebooks' titles
    and this table: a new exercise or lesson is in it after ``python scripts/release.py <L>``."""
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    release = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(release)
    table = release.lesson_table()
    for e in contract.CONTRACT:
        assert f"`{e.name}`" in table, e.name
    readme = (ROOT / "README.md").read_text()
    assert release.TABLE[0] + "\n" + table + release.TABLE[1] in readme, (
        "README.md's lesson table is stale: run `python scripts/release.py`"
    )


def test_contributing_names_tests_that_exist():
    """CONTRIBUTING.md's checklists name, for each step, the test that catches an omission."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    files = set(re.findall(r"`(tests/[\w/]+\.py)", text))
    tests = set(re.findall(r"::(\w+)`", text))
    assert len(files) >= 5 and len(tests) >= 10
    for path in files:
        assert (ROOT / path).is_file(), f"CONTRIBUTING.md names {path}"
    defined = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    for test in tests:
        assert f"def {test}(" in defined, f"CONTRIBUTING.md names a test {test} that does not exist"

"""The notebook gate: the nbgrader sources in solutions/, the release in notebooks/, end to end.

Fast tests read the notebooks' JSON: every exercise and question of a lesson has its solution cell,
its check and a locked graded cell worth the grader's points, and sources carry no outputs.
Slow tests run the real thing: a fresh ``nbgrader generate_assignment`` must reproduce the
committed notebooks/, every solution notebook must run top to bottom in a fresh ``python3``
kernel without errors or stderr, and ``nbgrader autograde`` must give the solutions full marks
and the blank learner notebooks zero.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import torch

from autograder import contract
from autograder.core.registry import all_exercises
from autograder.questions import QUESTIONS, grade_answer

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"


def _load_release():
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


release = _load_release()
ASSIGNMENTS = release.assignments()
# Every solution folder named "<NN>_<topic>" is a lesson (discovered, never listed by hand).
LESSONS = [a for a in ASSIGNMENTS if a[:2].isdigit() and a[2:3] == "_"]


def source(assignment: str) -> Path:
    return SOLUTIONS / assignment / f"{assignment}.ipynb"


def cells(path: Path) -> list:
    return nbformat.read(path, as_version=4).cells


def nbgrader_meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def graded_cells(path: Path) -> dict[str, object]:
    """grade_id -> cell, for nbgrader's autograder-tests cells."""
    return {nbgrader_meta(c)["grade_id"]: c for c in cells(path) if nbgrader_meta(c).get("grade")}


def defines(cell_source: str) -> set[str]:
    tree = ast.parse(cell_source)
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def exercises_of(assignment: str) -> dict:
    return {name: ex for name, ex in all_exercises().items() if ex.lesson == assignment}


def questions_of(assignment: str) -> dict:
    return {qid: q for qid, q in QUESTIONS.items() if qid.startswith(assignment[:2] + "_")}


# -- the sources ---------------------------------------------------------------------------------


def test_every_lesson_is_an_assignment_with_one_notebook_named_like_its_folder():
    assert LESSONS and set(LESSONS) == set(ASSIGNMENTS), "solutions/ holds lessons <NN>_<topic>"
    for assignment in ASSIGNMENTS:
        assert [p.name for p in (SOLUTIONS / assignment).glob("*.ipynb")] == [f"{assignment}.ipynb"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_sources_have_no_outputs(assignment):
    for i, cell in enumerate(cells(source(assignment)), start=1):
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, (
                f"{assignment} cell {i} has outputs: run `make release` (it strips them)"
            )


@pytest.mark.parametrize("assignment", LESSONS)
def test_every_exercise_has_a_solution_cell_a_check_and_a_graded_cell(assignment):
    nb = cells(source(assignment))
    graded = graded_cells(source(assignment))
    exercises = exercises_of(assignment)
    if assignment in contract.lessons():  # the notebook grades exactly the table's exercises
        graded_names = {g.removeprefix("grade_") for g in graded} & set(contract.NAMES)
        assert graded_names == set(exercises), (
            f"{assignment}: the notebook grades {sorted(graded_names)}, the contract table "
            f"(autograder/contract.py) lists {sorted(exercises)}"
        )
    for name, ex in exercises.items():
        solution = [c for c in nb if nbgrader_meta(c).get("solution") and name in defines(c.source)]
        assert len(solution) == 1, f"{name}: one solution cell defines it"
        assert "### BEGIN SOLUTION" in solution[0].source
        assert any(c.source.strip() == f"check({name})" for c in nb), f"{name}: no check cell"
        cell = graded.get(f"grade_{name}")
        assert cell is not None, f"{name}: no graded cell grade_{name}"
        assert f"check({name}, strict=True)" in cell.source
        assert nbgrader_meta(cell)["points"] == ex.points, f"{name}: points differ from registry"


@pytest.mark.parametrize("assignment", LESSONS)
def test_every_question_has_an_answer_cell_a_check_and_a_graded_cell(assignment):
    nb = cells(source(assignment))
    graded = graded_cells(source(assignment))
    questions = questions_of(assignment)
    assert questions, f"lesson {assignment} ends with a few questions"
    for qid, q in questions.items():
        variable = f"answer_{qid}"
        answer = [
            c for c in nb if nbgrader_meta(c).get("solution") and variable in defines(c.source)
        ]
        assert len(answer) == 1, f"{qid}: one solution cell sets {variable}"
        assert any(c.source.strip() == f'check_answer("{qid}", {variable})' for c in nb)
        cell = graded.get(f"grade_answer_{qid}")
        assert cell is not None, f"{qid}: no graded cell"
        assert f'check_answer("{qid}", {variable}, strict=True)' in cell.source
        assert nbgrader_meta(cell)["points"] == q.points


@pytest.mark.parametrize("assignment", LESSONS)
def test_solution_answers_are_the_right_ones(assignment):
    namespace = {"math": math, "torch": torch}
    for cell in cells(source(assignment)):
        if nbgrader_meta(cell).get("solution") and "answer_" in cell.source:
            exec(cell.source, namespace)
    for qid in questions_of(assignment):
        verdict = grade_answer(qid, namespace[f"answer_{qid}"])
        assert verdict.correct, verdict.message


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_graded_cells_are_locked_worth_points_and_uniquely_named(assignment):
    ids = []
    for cell in cells(source(assignment)):
        meta = nbgrader_meta(cell)
        if not meta:
            continue
        ids.append(meta["grade_id"])
        if meta.get("grade"):
            assert meta["locked"] and meta["points"] > 0 and not meta["solution"]
            assert cell.source.lstrip().startswith("# "), "graded cells say their points first"
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("assignment", LESSONS)
def test_lesson_follows_the_lesson_shape(assignment):
    text = "\n".join(c.source for c in cells(source(assignment)) if c.cell_type == "markdown")
    for heading in ("After this", "**Time:**", "## Common mistakes", "## Recap", "## Your grade"):
        assert heading in text, f"{assignment} lacks {heading!r}"
    if assignment != "00_setup":
        for part in ("## Intuition", "$$", "plot_", "**Next:**"):
            assert part in text + "\n".join(c.source for c in cells(source(assignment)))


# -- the release ---------------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_learner_notebooks_hold_no_solutions(assignment):
    released = NOTEBOOKS / assignment / f"{assignment}.ipynb"
    assert released.is_file(), "run `make release`"
    for cell in cells(released):
        assert "BEGIN SOLUTION" not in cell.source and "END SOLUTION" not in cell.source
        if nbgrader_meta(cell).get("solution"):
            assert "raise NotImplementedError()" in cell.source


def test_learner_notebooks_folder_holds_only_released_notebooks():
    files = [p for p in NOTEBOOKS.rglob("*") if p.is_file()]
    assert files and all(p.suffix == ".ipynb" for p in files), files
    assert {p.parent.name for p in files} == set(ASSIGNMENTS)


def test_differences_reports_changed_cells_and_stray_files(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A")])
    for side in ("expected", "actual"):
        (tmp_path / side / "a1").mkdir(parents=True)
        nbformat.write(nb, tmp_path / side / "a1" / "a1.ipynb")
    assert release.differences(tmp_path / "expected" / "a1", tmp_path / "actual" / "a1") == []
    nb.cells[0].source = "# B"
    nbformat.write(nb, tmp_path / "actual" / "a1" / "a1.ipynb")
    (tmp_path / "actual" / "a1" / "notes.txt").write_text("stray")
    found = release.differences(tmp_path / "expected" / "a1", tmp_path / "actual" / "a1")
    assert found == [
        "a1/notes.txt: not made by a release (remove it)",
        "a1/a1.ipynb: cell 1 source differs",
    ]


@pytest.mark.slow
def test_committed_notebooks_match_a_fresh_release(tmp_path):
    built = release.generate(tmp_path, ASSIGNMENTS)
    problems = []
    for assignment in ASSIGNMENTS:
        problems += release.differences(built / assignment, NOTEBOOKS / assignment)
    assert not problems, "notebooks/ is stale, run `make release`:\n" + "\n".join(problems)


# -- running them --------------------------------------------------------------------------------


def problems_in(nb, allow_errors: bool = False) -> list[str]:
    found = []
    for i, cell in enumerate(nb.cells, start=1):
        for out in cell.get("outputs", []):
            if out.output_type == "error" and not allow_errors:
                found.append(f"cell {i}: {out.ename}: {out.evalue}")
            if out.output_type == "stream" and out.name == "stderr":
                found.append(f"cell {i} wrote to stderr: {out.text[:300]}")
    return found


class RoundTrip:
    """One nbgrader round trip of a lesson: its release generated, then the solution notebook
    and the blank learner notebook autograded (each executed top to bottom in a fresh ``python3``
    kernel, once per session); the gates below read it."""

    def __init__(self, assignment: str, root: Path):
        self.notebook = f"{assignment}.ipynb"
        built = release.generate(root, [assignment])
        for student, original in (
            ("solution", source(assignment)),
            ("blank", built / assignment / self.notebook),
        ):
            folder = root / "submitted" / student / assignment
            folder.mkdir(parents=True)
            shutil.copy(original, folder / self.notebook)
        self.done = subprocess.run(
            [str(Path(sys.executable).parent / "nbgrader"), "autograde", assignment, "--force"]
            + release.course_args(root),
            cwd=root,
            capture_output=True,
            text=True,
            env=release.nbgrader_env(),
        )
        self.root, self.assignment = root, assignment

    def executed(self, student: str):
        """The notebook of ``student`` ("solution" or "blank") as autograde executed it."""
        path = self.root / "autograded" / student / self.assignment / self.notebook
        return nbformat.read(path, as_version=4)


_round_trips: dict[str, RoundTrip] = {}


@pytest.fixture
def round_trip(tmp_path_factory, assignment, venv_on_path) -> RoundTrip:
    """The lesson's round trip, run by the first gate that asks for it in this session (the
    gates of a lesson share an xdist group, so they run in the same worker)."""
    if assignment not in _round_trips:
        _round_trips[assignment] = RoundTrip(assignment, tmp_path_factory.mktemp(assignment))
    return _round_trips[assignment]


def _one_run_each(assignment):
    return pytest.param(assignment, marks=pytest.mark.xdist_group(f"round-trip-{assignment}"))


@pytest.mark.slow
@pytest.mark.parametrize("assignment", [_one_run_each(a) for a in ASSIGNMENTS])
def test_solution_notebook_runs_top_to_bottom(round_trip):
    """Every cell ran, in a fresh kernel, without an error output or anything on stderr."""
    assert round_trip.done.returncode == 0, round_trip.done.stdout + round_trip.done.stderr
    nb = round_trip.executed("solution")
    unrun = [
        i
        for i, c in enumerate(nb.cells, 1)
        if c.cell_type == "code" and c.source.strip() and c.get("execution_count") is None
    ]
    assert not unrun, f"cells {unrun} did not run"
    problems = problems_in(nb)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", [_one_run_each(a) for a in ASSIGNMENTS])
def test_autograde_gives_solutions_full_marks_and_blank_notebooks_zero(assignment, round_trip):
    from nbgrader.api import Gradebook

    assert round_trip.done.returncode == 0, round_trip.done.stdout + round_trip.done.stderr
    with Gradebook(f"sqlite:///{round_trip.root / 'gradebook.db'}") as gradebook:
        solution = gradebook.find_submission(assignment, "solution")
        blank = gradebook.find_submission(assignment, "blank")
        lost = {
            grade.name: grade.score
            for nb in solution.notebooks
            for grade in nb.grades
            if grade.score != grade.max_score
        }
        assert solution.max_score > 0
        assert solution.score == solution.max_score, f"the solution loses points in {lost}"
        assert blank.score == 0, f"the blank notebook scores {blank.score}"

"""``check`` of a lesson notebook grades what the notebook's graded cells grade: its lesson's
exercises and conceptual questions, with the same points, so its total is ``grade``'s total and
nbgrader's maximum is its maximum (issue 23, item 12). Lesson 10's practice drills (functions of
earlier lessons) are not counted."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.core.assignment import assignment
from autograder.core.registry import all_exercises
from autograder.questions import QUESTIONS

ROOT = Path(__file__).resolve().parents[2]
LESSON = "10_interview"
SOLUTION = ROOT / "solutions" / LESSON / f"{LESSON}.ipynb"
WRONG_ANSWER = ("answer_10_3 = 4 * 512**2", "answer_10_3 = 512**2")  # per-layer params, one W


def check_json(path: Path, *extra: str) -> tuple[int, dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "check", str(path), "--json", *extra],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    return proc.returncode, json.loads(proc.stdout)


def graded_cells_points(path: Path) -> float:
    """nbgrader's maximum: the points of the notebook's graded cells (as tests/test_notebooks.py
    reads them)."""
    nb = nbformat.read(path, as_version=4)
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    return float(sum(m["points"] for m in meta if m.get("grade")))


def grade_totals(root: Path, notebooks: dict[str, Path]) -> dict[str, tuple[str, str]]:
    """``grade``'s total and maximum of each student's lesson-10 notebook: one class, graded
    once."""
    for student, notebook in notebooks.items():
        folder = root / "class" / student / LESSON
        folder.mkdir(parents=True)
        shutil.copy(notebook, folder / f"{LESSON}.ipynb")
    out = root / "grades.csv"
    assert cli.main(["grade", str(root / "class"), "--out", str(out)]) == 0
    with out.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["assignment"] == LESSON]
    return {r["student"]: (r["total"], r["max"]) for r in rows}


@pytest.fixture(scope="module")
def wrong_copy(tmp_path_factory) -> Path:
    text = SOLUTION.read_text()
    right, wrong = WRONG_ANSWER
    assert right in text, "lesson 10's solution changed: update WRONG_ANSWER"
    path = tmp_path_factory.mktemp("wrong") / f"{LESSON}.ipynb"
    path.write_text(text.replace(right, wrong))
    return path


@pytest.fixture(scope="module")
def graded_class(wrong_copy, tmp_path_factory) -> dict[str, tuple[str, str]]:
    """The solution and the wrong answer graded as two students of one class."""
    notebooks = {"solution": SOLUTION, "wrong answer": wrong_copy}
    return grade_totals(tmp_path_factory.mktemp("graded"), notebooks)


@pytest.mark.slow
@pytest.mark.xdist_group("lesson-10-class")  # both read one graded class (`make test`: -n 2)
@pytest.mark.parametrize("which", ["solution", "wrong answer"])
def test_check_total_is_grades_total_and_nbgraders_max(which, wrong_copy, graded_class):
    path = SOLUTION if which == "solution" else wrong_copy
    status, report = check_json(path)
    max_points = graded_cells_points(path)
    assert report["max_score"] == max_points == assignment(LESSON[:2]).max_points
    total, grade_max = graded_class[which]
    assert (float(total), float(grade_max)) == (report["score"], report["max_score"])

    graded = [r["exercise"] for r in report["results"]]
    assert graded == assignment(LESSON[:2]).items  # the questions, and nothing else
    drills = set(all_exercises()) & set(graded)
    assert not drills, f"lesson 10's practice drills are counted: {drills}"
    wrong = [r for r in report["results"] if not r["passed"]]
    if which == "solution":
        assert status == 0 and report["score"] == max_points and not wrong
    else:
        assert status == 1 and report["score"] == max_points - QUESTIONS["10_3"].points
        assert [r["exercise"] for r in wrong] == ["answer_10_3"]
        assert wrong[0]["mistake"] is None and "10.3" in wrong[0]["message"]


def test_only_names_a_question_by_its_variable(wrong_copy):
    status, report = check_json(wrong_copy, "--only", "answer_10_3", "answer_10_1")
    rows = {r["exercise"]: r for r in report["results"]}
    assert set(rows) == {"answer_10_1", "answer_10_3"} and status == 1
    assert rows["answer_10_1"]["passed"] and not rows["answer_10_3"]["passed"]
    status, report = check_json(wrong_copy, "--only", "answer_10_99")
    assert status == 2 and "answer_10_99" in report["error"]


@pytest.mark.parametrize("name", [f"{LESSON}-Copy1", f"{LESSON} (1)", "我的第10课"])
def test_a_copy_of_the_notebook_is_checked_as_its_lesson(name, wrong_copy, tmp_path):
    """JupyterLab's Duplicate names the copy 10_interview-Copy1.ipynb: it is still lesson 10's
    notebook, its questions counted (trial 38: a copy was checked as a plain file, 5/5 with a
    wrong answer, where the notebook itself has 9/10); so is a copy under a name of the
    learner's own, known by its graded cells (trial 39: 我的第04课.ipynb had 4/4, its 8 less 4)."""
    copy = tmp_path / f"{name}.ipynb"
    shutil.copy(wrong_copy, copy)
    status, report = check_json(copy)
    assert report["max_score"] == assignment(LESSON[:2]).max_points
    assert [r["exercise"] for r in report["results"]] == assignment(LESSON[:2]).items
    assert status == 1 and [r["exercise"] for r in report["results"] if not r["passed"]] == [
        "answer_10_3"
    ]

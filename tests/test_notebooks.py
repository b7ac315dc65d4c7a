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
import math
import re
from pathlib import Path

import lesson_runs
import nbformat
import pytest
import torch

from autograder import contract
from autograder.core.registry import all_exercises
from autograder.questions import QUESTIONS, grade_answer

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"


release = lesson_runs.release
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


@pytest.mark.parametrize("assignment", LESSONS)
def test_a_stated_word_count_is_the_notebooks_own(assignment):
    """A **Time:** line that states "about N words of text outside the notes" is counted: the
    markdown's whitespace-separated words, the optional notes (``<details>``) left out."""
    text = "\n".join(c.source for c in cells(source(assignment)) if c.cell_type == "markdown")
    stated = re.search(r"about ([\d,]+) words of text outside the notes", text)
    if stated:
        words = len(re.sub(r"<details>.*?</details>", "", text, flags=re.S).split())
        claimed = int(stated[1].replace(",", ""))
        assert abs(words - claimed) <= 0.1 * words, f"{assignment}: says {claimed}, has {words}"


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
@pytest.mark.parametrize(("language", "lesson"), lesson_runs.params())
def test_committed_notebooks_match_a_fresh_release(lesson_run, language, lesson):
    """The committed learner notebook is the release the lesson's run generated from its source
    (``nbgrader generate_assignment``, as ``make release`` runs it), in every edition."""
    committed = lesson_runs.RELEASED[language] / lesson
    problems = release.differences(lesson_run.root / "release" / lesson, committed)
    where = committed.parent.relative_to(ROOT)
    assert not problems, f"{where}/ is stale, run `make release`:\n" + "\n".join(problems)


# -- running them --------------------------------------------------------------------------------


def problems_in(nb, allow_errors: bool = False) -> list[str]:
    """Each error (with what its cell printed before it: a check's report says which check
    failed and why, which "CheckFailed: ... (see above)" alone does not) and each write to
    stderr."""
    found = []
    for i, cell in enumerate(nb.cells, start=1):
        printed = "".join(
            out.text for out in cell.get("outputs", []) if out.output_type == "stream"
        )
        for out in cell.get("outputs", []):
            if out.output_type == "error" and not allow_errors:
                found.append(f"cell {i}: {out.ename}: {out.evalue}\n{printed[-3000:]}")
            if out.output_type == "stream" and out.name == "stderr":
                found.append(f"cell {i} wrote to stderr: {out.text[:300]}")
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("language", "lesson"), lesson_runs.params())
def test_solution_notebook_runs_top_to_bottom(lesson_run):
    """Every cell ran, in a fresh kernel, without an error output or anything on stderr."""
    assert lesson_run.done.returncode == 0, lesson_run.done.stdout + lesson_run.done.stderr
    nb = lesson_run.executed("solution")
    unrun = [
        i
        for i, c in enumerate(nb.cells, 1)
        if c.cell_type == "code" and c.source.strip() and c.get("execution_count") is None
    ]
    assert not unrun, f"cells {unrun} did not run"
    problems = problems_in(nb)
    assert not problems, "\n".join(problems)


# Cells whose output must show a plot or a widget (the course's plots and widgets): a call.
PLOTTING = re.compile(r"(?<!def )\b(plot_\w+|SaturationExplorer|MaskBuilder)\(")
WIDGET = re.compile(r"(?<!def )\bwidget\(")  # lesson 00's progress view
WAIT_FIRST = re.compile(  # course_lib.viz.needs, in English or in Chinese (course_lib.labels)
    r"write `\w+`( and `\w+`)* (and run the cells )?above first|请先(在上面)?写好 `\w+`"
)
PICTURE = ("image/png", "image/svg+xml", "application/vnd.jupyter.widget-view+json")


def is_stub(source: str) -> bool:
    """nbgrader's stub of an unanswered solution region, raising at the top level of a cell."""
    return "YOUR CODE HERE" in source and re.search(r"^raise NotImplementedError", source, re.M)


def shown_text(cell) -> str:
    """What a cell's outputs say: its printed text, results and tracebacks."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type == "error":
            parts.append("Traceback\n" + "\n".join(out.traceback))
        else:
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize(("language", "lesson", "student"), lesson_runs.student_params())
def test_a_learner_sees_plots_widgets_and_short_verdicts(lesson_run, student):
    """What the run shows a learner, cell by cell, up to where Run All Cells stops (the first
    error): every plot drawn (in a blank notebook, or a line saying what to write first), the
    progress widget, and in a blank notebook short "not written yet" verdicts rather than
    tracebacks (the one error allowed is nbgrader's ``raise NotImplementedError()`` stub of an
    unanswered question). tests/test_browser.py checks that the lab renders it. Blank notebooks:
    the English ones (a translated one is the same program: ``lesson_runs.students``)."""
    assert lesson_run.done.returncode == 0, lesson_run.done.stdout + lesson_run.done.stderr
    where = f"{lesson_run.language}/{student}/{lesson_run.assignment}"
    code = [c for c in lesson_run.executed(student).cells if c.cell_type == "code"]
    ran = []
    for cell in code:
        ran.append(cell)
        if any(out.output_type == "error" for out in cell.outputs):
            break  # Run All Cells stops here
    for i, cell in enumerate(ran):
        shows = {mime for out in cell.outputs for mime in out.get("data", {})}
        text = shown_text(cell)
        if PLOTTING.search(cell.source):
            waits = student == "blank" and WAIT_FIRST.search(text)
            assert shows & set(PICTURE) or waits, f"{where} cell {i} shows no plot:\n{cell.source}"
        if WIDGET.search(cell.source):
            assert PICTURE[-1] in shows, f"{where} cell {i} shows no widget:\n{cell.source}"
        if student == "blank":
            if any(out.output_type == "error" for out in cell.outputs):
                assert is_stub(cell.source), f"{where} cell {i}: a traceback\n{text}"
            if re.match(r"check\(\w+\)", cell.source.strip()):
                assert "not written yet" in text, f"{where} cell {i}: {text}"
                assert "Traceback" not in text, f"{where} cell {i}: {text}"


@pytest.mark.slow
@pytest.mark.parametrize(("language", "lesson", "student"), lesson_runs.student_params())
def test_autograde_gives_solutions_full_marks_and_blank_notebooks_zero(lesson, lesson_run, student):
    """Blank notebooks: the English ones (a translated one is the same program, with the same
    graded cells: ``lesson_runs.students``)."""
    from nbgrader.api import Gradebook

    assert lesson_run.done.returncode == 0, lesson_run.done.stdout + lesson_run.done.stderr
    with Gradebook(f"sqlite:///{lesson_run.root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(lesson, student)
        lost = {
            grade.name: grade.score
            for nb in submission.notebooks
            for grade in nb.grades
            if grade.score != grade.max_score
        }
        assert submission.max_score > 0
        if student == "solution":
            assert submission.score == submission.max_score, f"the solution loses points in {lost}"
        else:
            assert submission.score == 0, f"the blank notebook scores {submission.score}"

"""The grader's scores in nbgrader's gradebook: where nbgrader autograde would put them.

Fast tests write a table built by hand into a gradebook made with nbgrader's API from the released
notebook's grade cells; the slow one runs the real round trip (generate, release, submissions in
nbgrader's layout, ``grade --gradebook``, ``nbgrader export``).
"""

from __future__ import annotations

import csv
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from lesson_files import wrong_file
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

from autograder import cli
from autograder.core.result import Result
from autograder.grade.grading import (
    BLANK,
    GRADED,
    LATE,
    NOT_SUBMITTED,
    UNREADABLE,
    Graded,
    GradeTable,
)
from autograder.grade.nbgrader_gradebook import (
    CourseGradebook,
    GradebookError,
    cell_name,
    item_points,
)

ROOT = Path(__file__).resolve().parents[2]
MASKS = "04_softmax_masks"
COURSE = "attention-from-scratch"


def released_grade_cells(name: str) -> dict[str, float]:
    """grade_id -> points of the released notebook's graded cells."""
    nb = nbformat.read(ROOT / "notebooks" / name / f"{name}.ipynb", as_version=4)
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    return {m["grade_id"]: float(m["points"]) for m in meta if m.get("grade")}


_EMPTY = tempfile.TemporaryDirectory(prefix="gradebook-")  # this process's new gradebook


def new_gradebook(db: Path) -> str:
    """``db``: a new gradebook, as nbgrader's ``Gradebook`` makes one (its tables and alembic
    version), and its URL. nbgrader makes it once per process and later ones are copies: for each
    new database it runs ``alembic heads`` in a subprocess (1.2 CPU-s)."""
    empty = Path(_EMPTY.name) / "gradebook.db"
    if not empty.is_file():
        with Gradebook(f"sqlite:///{empty.with_suffix('.making')}", COURSE):
            pass
        empty.with_suffix(".making").rename(empty)
    shutil.copy(empty, db)
    return f"sqlite:///{db}"


def make_gradebook(course: Path, name: str = MASKS, cells: dict[str, float] | None = None) -> str:
    """A course folder whose gradebook holds ``name`` as generate_assignment would (its notebook
    and grade cells), made with nbgrader's API."""
    course.mkdir(exist_ok=True)
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {COURSE!r}\n"
    )
    url = new_gradebook(course / "gradebook.db")
    with Gradebook(url, COURSE) as gb:
        gb.add_assignment(name)
        gb.add_notebook(name, name)
        for cell, points in (released_grade_cells(name) if cells is None else cells).items():
            gb.add_grade_cell(cell, name, name, max_score=points, cell_type="code")
    return url


def row(student: str, status: str, points: dict[str, float], **kw) -> Graded:
    """A graded row as grade_class makes one (``points``: the items judged; the rest 0)."""
    maxima = item_points("04")
    results = [
        Result(item, points.get(item, 0) == top, points.get(item, 0), top, "", None)
        for item, top in maxima.items()
    ]
    results = [] if status in (UNREADABLE, NOT_SUBMITTED) else results
    return Graded(student, MASKS, status, sum(maxima.values()), results=results, **kw)


def table(tmp_path: Path, *rows: Graded) -> GradeTable:
    return GradeTable(list(rows), tmp_path / "grades.csv", tmp_path / "grades_feedback")


def scores(url: str, student: str, name: str = MASKS) -> dict[str, tuple]:
    """grade cell -> (auto_score, manual_score, score) of a student's submission."""
    with Gradebook(url, COURSE) as gb:
        nb = gb.find_submission_notebook(name, name, student)
        return {g.name: (g.auto_score, g.manual_score, g.score) for g in nb.grades}


def total(url: str, student: str, name: str = MASKS) -> float:
    """What ``nbgrader export`` reports as the score (raw score less the late penalty)."""
    with Gradebook(url, COURSE) as gb:
        submission = gb.find_submission(name, student)
        return max(0.0, submission.score - submission.late_submission_penalty)


def test_every_exercise_and_question_is_a_grade_cell_of_the_release_worth_its_points():
    for name in (p.name for p in sorted((ROOT / "notebooks").iterdir())):
        lesson = name[:2]
        cells = released_grade_cells(name)
        assert {cell_name(i): p for i, p in item_points(lesson).items()} == cells, name


def test_scores_land_in_the_gradebook_and_manual_overrides_survive_a_regrade(tmp_path):
    course = tmp_path / "course"
    url = make_gradebook(course)
    book = CourseGradebook.of(course)
    assert (book.url, book.course_id) == (url, COURSE)
    first = table(
        tmp_path,
        row("ada", GRADED, {"softmax": 1, "causal_mask": 1, "answer_04_1": 1}),
        row("bea", BLANK, {}),
        row("nos", NOT_SUBMITTED, {}),
        row("zed", UNREADABLE, {}),
    )
    written = book.write(first)
    assert (written.submissions, written.created, written.students) == (3, 3, 4)
    ada = scores(url, "ada")
    assert ada[cell_name("causal_mask")] == (1.0, None, 1.0)
    assert ada[cell_name("padding_mask")] == (0.0, None, 0.0)
    assert total(url, "ada") == 3 and total(url, "bea") == 0 and total(url, "zed") == 0
    with Gradebook(url, COURSE) as gb:
        assert {s.id for s in gb.students} == {"ada", "bea", "nos", "zed"}
        with pytest.raises(MissingEntry):  # never submitted: no submission, export says 0
            gb.find_submission(MASKS, "nos")
        zed = gb.find_submission_notebook(MASKS, MASKS, "zed")
        assert all(g.needs_manual_grade for g in zed.grades)  # unreadable: look at it
        ada_nb = gb.find_submission_notebook(MASKS, MASKS, "ada")
        assert not any(g.needs_manual_grade for g in ada_nb.grades)
        # the instructor overrides one cell in formgrader (which sets manual_score)
        grade = gb.find_grade(cell_name("padding_mask"), MASKS, MASKS, "ada")
        grade.manual_score = 0.5
        gb.db.commit()

    # ada fixes causal_mask's neighbour and breaks softmax; a late resubmission, penalised
    when = datetime(2026, 12, 2, 9, 30)
    regrade = table(
        tmp_path,
        row("ada", LATE, {"causal_mask": 1, "padding_mask": 1, "answer_04_1": 1}, submitted=when),
    )
    regrade.rows[0].penalty = 0.75
    written = CourseGradebook.of(course / "gradebook.db").write(regrade)
    assert (written.submissions, written.created, written.students) == (1, 0, 0)
    assert written.kept == [f"ada/{MASKS}/grade_padding_mask"]
    assert "1 manual scores from formgrader kept" in written.summary()
    ada = scores(url, "ada")
    assert ada[cell_name("padding_mask")] == (1.0, 0.5, 0.5)  # the instructor's score wins
    assert ada[cell_name("softmax")] == (0.0, None, 0.0)  # the new auto score
    assert total(url, "ada") == 1 + 0.5 + 1 - 0.75
    with Gradebook(url, COURSE) as gb:
        submission = gb.find_submission(MASKS, "ada")
        assert submission.timestamp == when
        assert gb.find_grade(cell_name("padding_mask"), MASKS, MASKS, "ada").needs_manual_grade
    assert scores(url, "bea")[cell_name("softmax")] == (0.0, None, 0.0)  # not regraded


def test_manual_grade_cells_of_the_instructor_are_left_alone(tmp_path):
    course = tmp_path / "course"
    cells = released_grade_cells(MASKS) | {"essay": 3.0}
    url = make_gradebook(course, cells=cells)
    CourseGradebook.of(course).write(table(tmp_path, row("ada", GRADED, {"softmax": 1})))
    assert scores(url, "ada")["essay"] == (None, None, 0.0)
    with Gradebook(url, COURSE) as gb:
        assert gb.find_grade("essay", MASKS, MASKS, "ada").needs_manual_grade


def test_a_gradebook_that_cannot_take_the_scores_is_refused_and_left_unchanged(tmp_path):
    with pytest.raises(GradebookError, match="no gradebook there yet.*make release"):
        CourseGradebook.of(tmp_path)
    with pytest.raises(GradebookError, match="no such course folder"):
        CourseGradebook.of(tmp_path / "nowhere")
    assert not (tmp_path / "gradebook.db").exists()  # nothing created by asking

    other = tmp_path / "other"
    make_gradebook(other, "02_qkt", released_grade_cells("02_qkt"))
    with pytest.raises(GradebookError, match=f"{MASKS} is not in the gradebook"):
        CourseGradebook.of(other).write(table(tmp_path, row("ada", GRADED, {})))

    stale = tmp_path / "stale"
    cells = released_grade_cells(MASKS) | {"grade_softmax": 2.0}
    cells.pop("grade_answer_04_4")
    url = make_gradebook(stale, cells=cells)
    with pytest.raises(GradebookError) as refused:
        CourseGradebook.of(stale).write(table(tmp_path, row("ada", GRADED, {"softmax": 1})))
    assert "no grade cell grade_answer_04_4" in str(refused.value)
    assert "grade_softmax is worth 2 points there, softmax 1" in str(refused.value)
    with Gradebook(url, COURSE) as gb:
        assert gb.students == []  # refused before the first write


def test_grade_refuses_a_gradebook_without_the_assignment_before_grading(tmp_path, capsys):
    course = tmp_path / "course"
    make_gradebook(course, "02_qkt", released_grade_cells("02_qkt"))
    root = tmp_path / "submitted" / "ada" / MASKS
    root.mkdir(parents=True)
    (root / f"{MASKS}.ipynb").write_text("{ not a notebook")
    out = tmp_path / "grades.csv"
    code = cli.main(
        ["grade", str(tmp_path / "submitted"), "--out", str(out)]
        + [
            "--gradebook",
            str(course),
        ]
    )
    assert code == 2
    assert f"{MASKS} is not in the gradebook" in capsys.readouterr().err
    assert not out.exists()  # refused before grading


# -- the real round trip -------------------------------------------------------------------------


def _load_release():
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def nbgrader(release, course: Path, *args: str) -> str:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), *args, *release.course_args(course)],
        cwd=course,
        capture_output=True,
        text=True,
        env=release.nbgrader_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def solved(cells: list, replace: dict[str, str]) -> list:
    """The released cells with some solution regions filled in (``grade_id -> source``)."""
    for cell in cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in replace:
            cell.source = replace[grade_id]
    return cells


@pytest.mark.slow
def test_nbgrader_export_agrees_with_the_table_after_grade(tmp_path, venv_on_path):
    release = _load_release()
    course = tmp_path / "course"
    course.mkdir()
    built = release.generate(course, [MASKS, "02_qkt"])  # nbgrader generate_assignment
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    log = nbgrader(release, course, "release_assignment", MASKS, f"--Exchange.root={exchange}")
    assert (exchange / COURSE / "outbound" / MASKS / f"{MASKS}.ipynb").is_file(), log

    submitted = course / "submitted"
    blank = built / MASKS / f"{MASKS}.ipynb"

    def submit(student: str, nb, name: str = MASKS, when: str | None = None) -> None:
        folder = submitted / student / name
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{name}.ipynb")
        if when:
            (folder / "timestamp.txt").write_text(when)

    solution = nbformat.read(ROOT / "solutions" / MASKS / f"{MASKS}.ipynb", as_version=4)
    submit("ada", solution, when="2026-11-30 10:00:00 UTC")  # everything right
    submit("bea", nbformat.read(blank, as_version=4))  # the release, untouched
    partly = nbformat.read(blank, as_version=4)
    wrong = wrong_file("causal-mask-inverted").read_text()
    right = {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in solution.cells
        if "nbgrader" in c.metadata
    }
    partly.cells = solved(
        partly.cells,
        {
            "softmax": right["softmax"],
            "causal_mask": wrong,
            "answer_04_1": "answer_04_1 = 21",
            "answer_04_2": 'answer_04_2 = "a"',
        },
    )
    submit("cal", partly, when="2026-12-03 10:00:00 UTC")  # late: penalised
    (submitted / "dan" / MASKS).mkdir(parents=True)
    (submitted / "dan" / MASKS / f"{MASKS}.ipynb").write_text("{ not JSON")
    qkt = nbformat.read(ROOT / "solutions" / "02_qkt" / "02_qkt.ipynb", as_version=4)
    submit("eve", qkt, name="02_qkt")  # never submitted lesson 04
    before = {p: p.read_bytes() for p in submitted.rglob("*") if p.is_file()}

    out = tmp_path / "grades.csv"
    args = ["grade", str(submitted), "--out", str(out), "--workers", "2"]
    args += ["--due", "2026-12-01 23:59 UTC", "--late-penalty", "0.5", "--gradebook", str(course)]
    assert cli.main(args) == 0
    assert {p: p.read_bytes() for p in submitted.rglob("*") if p.is_file()} == before

    exported = tmp_path / "export.csv"
    nbgrader(release, course, "export", f"--to={exported}")
    with out.open(newline="") as f:
        ours = {(r["student"], r["assignment"]): r for r in csv.DictReader(f)}
    with exported.open(newline="") as f:
        theirs = {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}
    assert set(theirs) == set(ours)
    for key, r in ours.items():
        got = theirs[key]
        assert float(got["score"]) == float(r["total"]), (key, got, r)
        assert float(got["max_score"]) == float(r["max"]), key
        assert float(got["late_submission_penalty"] or 0) == float(r["penalty"] or 0), key
        # nbgrader's timestamp.txt, in UTC: labelled so in the table (nbgrader's export is not)
        assert (f"{got['timestamp']} UTC" if got["timestamp"] else "") == r["submitted"], key
    table = {k: (r["status"], r["total"]) for k, r in ours.items() if k[1] == MASKS}
    assert table == {
        ("ada", MASKS): ("graded", "8"),
        ("bea", MASKS): ("blank", "0"),
        ("cal", MASKS): ("late", "1"),  # softmax and 04_1 right, less half for lateness
        ("dan", MASKS): ("unreadable", "0"),
        ("eve", MASKS): ("not-submitted", "0"),
    }

    # formgrader's and generate_feedback's autograded notebooks: sanitised, never run, with the
    # grader's verdict under each graded cell; none for the unreadable or missing submission
    autograded = course / "autograded"
    made = {p.relative_to(autograded).parts[:2] for p in autograded.rglob("*.ipynb")}
    assert made == {("ada", MASKS), ("bea", MASKS), ("cal", MASKS), ("eve", "02_qkt")}
    cal = nbformat.read(autograded / "cal" / MASKS / f"{MASKS}.ipynb", as_version=4)
    said = {
        c.metadata.nbgrader["grade_id"]: "".join(o.text for o in c.outputs)
        for c in cal.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }
    assert said["grade_softmax"].startswith("PASS  softmax  1/1")
    assert said["grade_causal_mask"].startswith("FAIL  causal_mask  0/1")
    assert "Looks like:" in said["grade_causal_mask"]
    assert set(said) == set(released_grade_cells(MASKS))
    assert not [
        c
        for c in cal.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution") and c.outputs
    ]  # nothing of the learner's was run
    coursedir = CourseDirectory(root=str(course), course_id=COURSE)
    listed = NbGraderAPI(coursedir=coursedir).get_notebook_submissions(MASKS, MASKS)
    assert sorted(s["student"] for s in listed) == ["ada", "bea", "cal"]  # formgrader's list

    # an override in formgrader, then a regrade of that student: the override stays
    url = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(url, COURSE) as gb:
        gb.find_grade("grade_causal_mask", MASKS, MASKS, "cal").manual_score = 1.0
        gb.db.commit()
    assert cli.main(args + ["--student", "cal"]) == 0
    nbgrader(release, course, "export", f"--to={exported}")
    with exported.open(newline="") as f:
        cal = next(
            r for r in csv.DictReader(f) if r["student_id"] == "cal" and r["assignment"] == MASKS
        )
    assert float(cal["raw_score"]) == 3 and float(cal["score"]) == 3 - 1  # penalty as before

    # nbgrader's own feedback, from the autograded notebooks and the gradebook
    nbgrader(release, course, "generate_feedback", MASKS)
    html = (course / "feedback" / "cal" / MASKS / f"{MASKS}.html").read_text()
    assert "FAIL  causal_mask  0/1" in html  # the grader's verdict, for the learner
    assert f"{MASKS} (Score: 2.0 / 8.0)" in html  # the override counts, less the late penalty


@pytest.mark.slow
def test_make_release_makes_a_course_whose_gradebook_takes_the_scores(tmp_path, venv_on_path):
    release = _load_release()
    names = ["02_qkt", "03_scaling"]
    release.make_course(tmp_path, names)  # a copy of the repo's course folder: config, solutions
    for _ in range(2):  # again, as `make release` after an edit: nbgrader updates in place
        built = release.generate_course(tmp_path, names)
    assert built == tmp_path / "release" and sorted(p.name for p in built.iterdir()) == names
    book = CourseGradebook.of(tmp_path)  # the config's course id, gradebook.db in the root
    assert (book.url, book.course_id) == (f"sqlite:///{tmp_path / 'gradebook.db'}", COURSE)
    with book.open() as gb:
        maxima = {a.name: a.max_score for a in gb.assignments}
    assert (
        maxima
        == {n: sum(item_points(n[:2]).values()) for n in names}
        == {
            "02_qkt": 4.0,
            "03_scaling": 7.0,
        }
    )
    book.check(tmp_path / "submitted", names)  # what `grade --gradebook` checks: no error


def test_a_timestamp_earlier_than_the_gradebooks_is_written_with_a_warning(tmp_path):
    """timestamp.txt is trusted as nbgrader trusts it (SECURITY.md); one earlier than the time
    the gradebook already had (nbgrader's collect) is named in the summary."""
    course = tmp_path / "course"
    make_gradebook(course)
    later, earlier = datetime(2026, 12, 2, 9, 30), datetime(2026, 11, 30, 8, 0)
    book = CourseGradebook.of(course / "gradebook.db")
    first = book.write(table(tmp_path, row("ada", GRADED, {"softmax": 1}, submitted=later)))
    assert first.earlier == [] and "warning" not in first.summary()
    again = book.write(table(tmp_path, row("ada", GRADED, {"softmax": 1}, submitted=earlier)))
    assert again.earlier == [f"ada/{MASKS}"]
    assert "earlier than the submission time the gradebook had" in again.summary()

"""The instructor's workflow after grading (issue 22): the gradebook is the one truth, due dates
and penalties are recorded, ``--due`` reads what nbgrader reads, the outputs stay out of git, the
class report counts a failure once at its root, and the small things said right.

The end-to-end tests grade small classes in the sandbox (lesson 04, a few notebooks each).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from nbgrader.api import Gradebook
from test_grade import CORRECT, INVERTED, MASKS, read_table, submit
from test_gradebook import COURSE, make_gradebook
from test_report import Page, graded

from autograder import cli
from autograder.core.assignment import assignment, judge_assignment
from autograder.core.extract import from_sources
from autograder.grade import messages
from autograder.grade.due import DueError, parse_due, read_dues
from autograder.grade.grading import grade_class
from autograder.grade.nbgrader_gradebook import CourseGradebook, cell_name
from autograder.grade.outputs import class_report, exports, feedback
from autograder.grade.results import LATE, NOT_SUBMITTED, Graded, GradeError, GradeTable
from tests.sandbox.marks import NEEDS_BWRAP

ROOT = Path(__file__).resolve().parents[2]


def rows_of(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def stamp(notebook: Path, when: str) -> None:
    (notebook.parent / "timestamp.txt").write_text(when)


# -- due dates ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, utc",
    [
        ("Dec 1 2026", "2026-12-01 00:00"),
        ("2026-12-01 17:00:00 UTC", "2026-12-01 17:00"),
        ("2026-12-01T17:00:00+01:00", "2026-12-01 16:00"),
        ("Dec 1 2026 17:00 UTC", "2026-12-01 17:00"),
        ("2026-11-24 12:00:00 Europe/Paris", "2026-11-24 11:00"),  # nbgrader's zone names
    ],
)
def test_due_reads_the_formats_nbgrader_reads(text, utc):
    assert f"{parse_due(text):%Y-%m-%d %H:%M}" == utc


def test_an_unknown_assignment_is_named_unknown_not_a_bad_date():
    with pytest.raises(DueError, match="'04_softmax_mask' is not an assignment of the course"):
        read_dues(["04_softmax_mask=Dec 1 2026"])
    with pytest.raises(DueError, match="cannot read the due date 'next tuesday-ish'"):
        read_dues(["next tuesday-ish"])
    dates = read_dues([f"{MASKS}=Dec 1 2026", "Dec 2 2026"])
    assert dates == {MASKS: datetime(2026, 12, 1), None: datetime(2026, 12, 2)}
    with pytest.raises(GradeError, match="'99_nothing' is not an assignment"):
        grade_class("nowhere", "g.csv", due=["99_nothing=Dec 1 2026"], allow_weak_sandbox=True)


@pytest.mark.parametrize(
    "text, why",
    [
        # the first reader's reason, not nbgrader's rewrite of the text ("Dec 32 TZ")
        ("Dec 32 2026", "day is out of range for month: Dec 32 2026"),
        ("2026-12-01 25:00 UTC", "hour must be in 0..23: 2026-12-01 25:00 UTC"),
        # a zone nobody knows: nbgrader's reading takes it as UTC without a word
        ("2026-12-01 23:00 Europe/Pairs", "unknown time zone 'Europe/Pairs'"),
        # a typo gets the date as it was meant; a name like none gets what a zone is
        ("2026-12-01 23:00 Europe/Pairs", "did you mean '2026-12-01 23:00 Europe/Paris'?"),
        ("2026-12-01 23:00 Mars/Olympus", "a name of the IANA database, such as Europe/Paris"),
        ("2026-12-01 23:00 ../../etc/passwd", "unknown time zone '../../etc/passwd'"),
    ],
)
def test_a_due_date_that_cannot_be_read_says_why_in_its_own_words(text, why):
    with pytest.raises(DueError) as refused:
        parse_due(text)
    assert f"cannot read the due date {text!r}" in str(refused.value)
    assert why in str(refused.value) and "TZ" not in str(refused.value)


def test_a_bad_due_fails_before_any_grading_starts(tmp_path, monkeypatch, capsys):
    from autograder.sandbox.host import pool

    def started(*args, **kw):
        raise AssertionError("the sandboxes were started before the options were checked")

    monkeypatch.setattr(pool, "start_ahead", started)
    for option, says in [
        ("04_sofmax_masks=Dec 1 2026", "'04_sofmax_masks' is not an assignment"),
        ("04_sofmax_masks=Dec 1 2026", "; did you mean 04_softmax_masks?"),
        (f"{MASKS}=the first of December", "cannot read the due date"),
    ]:
        assert cli.main(["grade", str(tmp_path), "--due", option]) == 2
        assert says in capsys.readouterr().err


def test_a_due_date_given_wins_over_the_gradebooks_and_is_recorded(tmp_path):
    class Book:  # a gradebook with a due date for the assignment
        def due_dates(self):
            return {MASKS: datetime(2026, 12, 1)}

        def write(self, table, root):
            return SimpleNamespace(summary=lambda: "")

        def overlay(self, rows):
            pass

    seen = {}

    def run(tasks, allow_weak):  # grade_one's tasks, recorded instead of graded
        seen.update({(t[0], t[1]): t[3] for t in tasks})
        return [Graded(t[0], t[1], NOT_SUBMITTED, 8.0, due=t[3]) for t in tasks]

    root = tmp_path / "submitted"
    (root / "ada" / MASKS).mkdir(parents=True)
    out = tmp_path / "g.csv"
    grade_class(root, out, config=None, run=run, gradebook=Book())
    assert seen == {("ada", MASKS): datetime(2026, 12, 1)}
    grade_class(root, out, config=None, run=run, gradebook=Book(), due=["Dec 5 2026"])
    assert seen == {("ada", MASKS): datetime(2026, 12, 5)}  # for every assignment: wins
    grade_class(root, out, config=None, run=run)  # no gradebook, no --due: the recorded one
    assert seen == {("ada", MASKS): datetime(2026, 12, 5)}


# -- the output folder is not student data in git ------------------------------------------------
def test_every_output_of_grade_is_ignored_by_git_by_default():
    default = Path(cli._parser().parse_args(["grade", "submitted"]).out)
    stem = default.with_suffix("")
    outputs = [
        default,
        Path(f"{stem}_results.json"),
        Path(f"{stem}_lms.csv"),
        Path(f"{stem}_canvas.csv"),
        Path(f"{stem}_report.html"),
        Path(f"{stem}_gradescope/ada/{MASKS}/results.json"),
        Path(f"{stem}_feedback/ada/{MASKS}.txt"),
        Path(f"grades/gradescope/{MASKS}/autograder.zip"),
        # an older habit, --out grades.csv at the root, is covered too
        Path("grades.csv"),
        Path("grades_results.json"),
        Path("grades_report.html"),
        Path("grades_lms.csv"),
        Path("grades_gradescope/ada/results.json"),
    ]
    assert default.parent != Path(".")  # one folder
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *map(str, outputs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert sorted(ignored) == sorted(map(str, outputs))


# -- the gradebook is the one truth ------------------------------------------------------------
def test_formgrader_overrides_and_recorded_penalties_reach_every_export(tmp_path, venv_on_path):
    """Done when: override in formgrader -> regrade -> CSV, LMS, Canvas, Gradescope and report
    show it; a gradebook due date alone makes a submission late; its penalty survives a regrade
    given no --due or --late-penalty; the regrade says what it changed."""
    course = tmp_path / "course"
    url = make_gradebook(course)
    with Gradebook(url, COURSE) as gb:  # nbgrader db assignment add 04... --duedate=...
        gb.update_or_create_assignment(MASKS, duedate=datetime(2026, 12, 1, 23, 59))
    root = tmp_path / "submitted"
    stamp(submit(root, "ada", CORRECT, "answer_04_1 = 21"), "2026-12-01 10:00:00 UTC")
    stamp(submit(root, "bob", CORRECT, "answer_04_1 = 21"), "2026-12-03 10:00:00 UTC")
    stamp(submit(root, "cy", INVERTED), "2026-12-01 09:00:00 UTC")
    out = tmp_path / "grades" / "grades.csv"
    book = CourseGradebook.of(course)

    table = grade_class(root, out, workers=2, config=None, late_penalty=0.5, gradebook=book)
    first = {r["student"]: r for r in rows_of(out)}
    assert (first["bob"]["status"], first["bob"]["penalty"], first["bob"]["total"]) == (
        "late",
        "1",
        "1",
    )  # late by the gradebook's due date alone: 2 points, half of them off
    assert first["ada"]["status"] == "graded" and first["ada"]["total"] == "2"
    assert "Gradebook sqlite:///" in table.summary()

    with Gradebook(url, COURSE) as gb:  # the instructor, in formgrader
        for student, cell, score in [("ada", "padding_mask", 1.0), ("cy", "answer_04_1", 1.0)]:
            grade = gb.find_grade(cell_name(cell), MASKS, MASKS, student)
            grade.manual_score = score
        gb.db.commit()

    # a regrade of one assignment, without --due or --late-penalty
    table = grade_class(root, out, workers=2, config=None, assignments=[MASKS], gradebook=book)
    grades = {r["student"]: r for r in rows_of(out)}
    expected = {"ada": "3", "bob": "1", "cy": "1"}
    assert {s: r["total"] for s, r in grades.items()} == expected
    assert grades["bob"]["status"] == "late" and grades["bob"]["penalty"] == "1"
    assert grades["ada"]["manual"] == "padding_mask=1 (grader 0)"
    assert grades["cy"]["manual"] == "answer_04_1=1 (grader 0)"
    with Gradebook(url, COURSE) as gb:  # nbgrader export's totals
        for student, points in expected.items():
            s = gb.find_submission(MASKS, student)
            assert max(0.0, s.score - s.late_submission_penalty) == float(points)
    lms = {r["username"]: r[MASKS] for r in rows_of(out.with_name("grades_lms.csv"))}
    assert lms == expected
    with out.with_name("grades_canvas.csv").open(newline="") as f:
        canvas = list(csv.reader(f))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", MASKS]
    assert canvas[1][0] == "Points Possible" and canvas[1][-1] == "8"
    assert {r[3]: r[-1] for r in canvas[2:]} == expected
    for student, points in expected.items():
        results = out.with_name("grades_gradescope") / student / MASKS / "results.json"
        assert json.loads(results.read_text())["score"] == float(points)
    ada = out.with_name("grades_gradescope") / "ada" / MASKS / "results.json"
    ada = json.loads(ada.read_text())
    padding = next(t for t in ada["tests"] if t["name"] == "padding_mask")
    assert padding["score"] == 1 and "set by your instructor" in padding["output"]
    assert ada["extra_data"]["manual"] == ["padding_mask"]
    text = (out.with_name("grades_feedback") / "ada" / f"{MASKS}.txt").read_text()
    assert "  failed  padding_mask   1/1 (set by your instructor; the grader gave 0)" in text
    page = Page(out.with_name("grades_report.html").read_text())
    assert {(r["Student"], r["Exercise or question"]) for r in page.table("Student")} >= {
        ("ada", "padding_mask"),
        ("cy", "Question 04.1"),
    }
    assert "2 scores set in formgrader" in table.summary()
    changed = [n for n in table.notes if n.startswith("changed:")]
    assert sorted(changed) == [
        f"changed: ada/{MASKS}: graded, 2 -> graded, 3 (of 8)",
        f"changed: cy/{MASKS}: graded, 0 -> graded, 1 (of 8)",
    ]


def test_a_late_penalty_survives_a_regrade_until_changed_explicitly(tmp_path):
    root = tmp_path / "submitted"
    stamp(submit(root, "bob", CORRECT, "answer_04_1 = 21"), "2026-12-03 10:00:00 UTC")
    out = tmp_path / "grades.csv"
    grade_class(root, out, workers=1, config=None, due=["Dec 1 2026"], late_penalty=0.25)
    assert read_table(out)[0]["status"] == "late" and read_table(out)[0]["total"] == "1.5"

    table = grade_class(root, out, workers=1, config=None, students=["bob"])  # no --due
    bob = read_table(out)[0]
    assert (bob["status"], bob["penalty"], bob["total"]) == ("late", "0.5", "1.5")
    assert not [n for n in table.notes if n.startswith("changed:")]

    table = grade_class(root, out, workers=1, config=None, late_penalty=0.0)  # the instructor
    bob = read_table(out)[0]
    assert (bob["status"], bob["penalty"], bob["total"]) == ("late", "", "2")
    assert f"changed: bob/{MASKS}: late, 1.5 -> late, 2 (of 8)" in table.notes


# -- feedback and report -------------------------------------------------------------------------
def test_the_tools_a_lesson_asks_to_paste_are_not_flagged():
    tools = "\n".join(
        f"def {name}(*a, **k):\n    pass\n"
        for name in ["softmax", "causal_mask", "scaled_dot_product_attention", "apply_rope"]
    )
    code = from_sources("06_multihead.ipynb", [("cell", tools + "answer_04_1 = 21\n")])
    _, notes = judge_assignment(code, assignment("06"))
    flagged = sorted(n.split("`")[1] for n in notes)
    assert flagged == ["answer_04_1", "apply_rope"]  # a later lesson's, another's question


def test_the_report_counts_a_failure_once_at_its_root_and_names_who():
    assert {"split_heads", "merge_heads"} <= class_report.depends_on("MultiHeadAttention")
    assert "MultiHeadAttention" in class_report.depends_on("TransformerBlock")
    assert class_report.depends_on("softmax") == frozenset()
    rows = [
        graded("ann", "06_multihead", failed={"merge_heads": "m", "MultiHeadAttention": "mha"}),
        graded("ben", "06_multihead", failed={"MultiHeadAttention": "mha"}),
        graded("cat", "06_multihead", failed={"merge_heads": "m"}),
    ]
    ranked, unnamed, unattempted, knocked = class_report.mistakes(rows)
    assert {m.mistake: (m.times, sorted(m.students)) for m in ranked} == {
        "m": (2, ["ann", "cat"]),
        "mha": (1, ["ben"]),  # ann's MHA failure is merge_heads's knock-on
    }
    assert (unnamed, unattempted, knocked) == (0, 0, 1)
    page = Page(class_report.report_html(rows))
    who = {r["Mistake"]: r["Who"] for r in page.table("Mistake")}
    assert who == {"m": "ann, cat", "mha": "ben"}


def test_the_report_states_one_denominator():
    rows = [
        graded("ann"),
        graded("ben", failed={"softmax": None}),
        graded("cy", status="unreadable", error="not JSON"),
        graded("dee", status="not-submitted"),
    ]
    page = Page(class_report.report_html(rows))
    text = " ".join("".join(page.text).split())
    assert "Every figure below is of the 3 submissions received" in text
    assert "1 student who never submitted left out" in text
    rates = {r["Exercise or question"]: r for r in page.table("Exercise or question")}
    softmax = rates["softmax"]
    assert (softmax["Passed"], softmax["Received"]) == ("1", "3")
    assert "Mean 5.00" in text  # (8 + 7 + 0) / 3


@NEEDS_BWRAP
def test_the_summary_names_the_cells_not_read_and_the_due_date_held_to(tmp_path):
    """A trial's instructor: a syntax error showed only in the student's own feedback (the table
    row looked like wrong code), and 'Dec 1 2026' held the class to the midnight that starts
    it without a word."""
    submit(tmp_path / "submitted", "bob", "x = (", CORRECT)
    out = tmp_path / "grades" / "grades.csv"
    table = grade_class(tmp_path / "submitted", out, workers=1, due=["Dec 1 2026"], config=None)
    assert "due: every assignment 2026-12-01 00:00 UTC" in table.notes, table.notes
    [unread] = [n for n in table.notes if n.startswith("cells not read")]
    assert "in 1 submission: bob/04_softmax_masks (1 cell);" in unread, unread
    assert table.rows[0].unread == 1 and table.rows[0].status == "graded"


def test_another_notebook_beside_the_one_graded_is_named(tmp_path):
    """Instructor trial 50: the work in 04_softmax_masks-Copy1.ipynb beside the untouched
    original was graded as blank, and neither the feedback nor the summary said a word."""
    original = submit(tmp_path / "submitted", "ivan", "import torch")
    nbformat.write(nbformat.read(original, 4), original.with_name(f"{MASKS}-Copy1.ipynb"))
    out = tmp_path / "grades" / "grades.csv"
    table = grade_class(tmp_path / "submitted", out, workers=1, config=None)
    [said] = [n for n in table.notes if n.startswith("other notebooks")]
    assert "in 1 submission: ivan/04_softmax_masks;" in said, said
    [row] = table.rows
    assert row.notebook == f"{MASKS}.ipynb" and row.others == [f"{MASKS}-Copy1.ipynb"]
    shown = messages.notes(row)
    assert f"also in the folder, not graded: {MASKS}-Copy1.ipynb" in " ".join(shown), shown


@NEEDS_BWRAP
def test_a_broken_import_cell_is_one_root_in_the_report_not_a_failure_per_exercise(tmp_path):
    """A trial's instructor: the report said 'each failure is counted once, at its root' and
    counted one stray comma in the import cell as a NameError failure of every exercise."""
    root, out = tmp_path / "submitted", tmp_path / "grades" / "grades.csv"
    submit(root, "ada", CORRECT)
    softmax = (
        "def softmax(x, dim=-1):\n    return torch.exp(x) / torch.exp(x).sum(dim, keepdim=True)\n"
    )
    submit(root, "carol", "import torch,", CORRECT.replace("import torch\n", softmax))
    grade_class(root, out, workers=1, config=None)
    grade_class(root, out, workers=1, students=["ada"], config=None)  # carol's row is kept
    report = Page((out.parent / "grades_report.html").read_text())
    [[row]] = [t for t in report.tables_headed("Student") if t and "Cells not read" in t[0]]
    assert (row["Student"], row["Cells not read"], row["Failures behind them"]) == (
        "carol",
        "1",
        "2",
    )
    text = " ".join("".join(report.text).split())
    assert "2 failures follow from cells the grader could not read" in text, text
    assert "named no known mistake" not in text, text  # none: a count of 0 is not said


@NEEDS_BWRAP
def test_a_regrade_held_to_another_due_date_than_the_class_says_so(tmp_path):
    """A trial's instructor: `--student bob --due ...` held bob to a date the rest of the table
    was not held to, without a word."""
    root, out = tmp_path / "submitted", tmp_path / "grades" / "grades.csv"
    for student in ("ada", "bob"):
        submit(root, student, CORRECT)
    grade_class(root, out, workers=1, due=["2026-12-01 23:59 UTC"], config=None)
    same = grade_class(root, out, workers=1, students=["bob"], config=None)  # keeps its date
    assert not [n for n in same.notes if "for the rows regraded" in n], same.notes
    other = grade_class(root, out, workers=1, students=["bob"], due=["Dec 3 2026"], config=None)
    [said] = [n for n in other.notes if "for the rows regraded" in n]
    assert said == (
        f"{MASKS}: due 2026-12-03 00:00 UTC for the rows regraded, 2026-12-01 23:59 UTC for the "
        "table's other rows of it (a row keeps the due date it was graded with until --due gives "
        "another)"
    )


def test_an_assignment_typo_is_refused_with_the_closest_name(tmp_path):
    with pytest.raises(GradeError, match="did you mean 04_softmax_masks"):
        grade_class(tmp_path, tmp_path / "g.csv", assignments=["04_softmax_mask"], config=None)


# -- the small things ----------------------------------------------------------------------------
def test_plurals_notes_and_the_penalty_line_are_said_once(tmp_path):
    table = GradeTable([graded("ada")], tmp_path / "g.csv", tmp_path / "fb")
    assert "Graded the class: 1 student, 1 assignment ->" in table.summary()
    regraded = GradeTable([graded("ada")], tmp_path / "g.csv", tmp_path / "fb", regraded=True)
    assert regraded.summary().startswith("Regraded 1 student, 1 assignment, the table's other rows")
    root = tmp_path / "submitted"
    (root / "ada" / MASKS).mkdir(parents=True)
    (root / "ada" / MASKS / "timestamp.txt").write_text("2026-12-01 10:00:00 UTC")
    table = GradeTable([graded("ada")], tmp_path / "g.csv", tmp_path / "fb", submissions=root)
    feedback.write_html(table)
    assert table.notes[0].startswith("1 feedback folder without submission_secret.txt (")
    note = "submitted 2026-12-02 09:30 UTC, 9.5 hours after the due date; late penalty: -0.7 points"
    late = graded("lou", status=LATE, failed={"softmax": None}, penalty=0.7, notes=[note])
    assert exports.gradescope_results(late)["output"].count("late penalty") == 1


def test_a_first_write_into_a_gradebook_warns_of_nothing(tmp_path, venv_on_path):
    course = tmp_path / "course"
    make_gradebook(course)
    script = f"""
import warnings
from sqlalchemy.exc import SAWarning
warnings.simplefilter("error", SAWarning)
from autograder.grade.nbgrader_gradebook import CourseGradebook
from test_report import graded
from autograder.grade.results import GradeTable
from pathlib import Path
book = CourseGradebook.of({str(course)!r})
book.write(GradeTable([graded("ada")], Path({str(tmp_path)!r}) / "g.csv", Path("fb")))
book.overlay([graded("ada")])
print(sorted(book.due_dates()))
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT / "tests" / "grade",
        capture_output=True,
        text=True,
        env={
            "PYTHONPATH": str(ROOT / "tests" / "grade"),
            "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        },
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "SAWarning" not in done.stderr


# -- Gradescope ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_gradescope_bundle_grades_in_gradescopes_layout(tmp_path):
    import zipfile

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gradescope as bundle
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    made = bundle.build(MASKS, tmp_path / "dist")
    with zipfile.ZipFile(made) as zf:
        names = set(zf.namelist())
        assert {"setup.sh", "run_autograder", "requirements-gradescope.txt"} <= names
        assert not any(n.startswith("solutions/") for n in names)
        setup = zf.read("setup.sh").decode()
        assert "download.pytorch.org/whl/cpu" in setup and "torch==" in setup
        assert "bubblewrap" in setup
    scores = {}
    for name, notebook in [
        ("solution", ROOT / "solutions" / MASKS / f"{MASKS}.ipynb"),
        ("blank", ROOT / "notebooks" / MASKS / f"{MASKS}.ipynb"),
    ]:
        root = tmp_path / name  # Gradescope's /autograder, replayed
        with zipfile.ZipFile(made) as zf:
            zf.extractall(root / "source")
        for script in ("setup.sh", "run_autograder"):
            (root / "source" / script).chmod(0o755)
        (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
        (root / "run_autograder").chmod(0o755)
        (root / "submission").mkdir()
        (root / "submission" / notebook.name).write_bytes(notebook.read_bytes())
        (root / "results").mkdir()
        done = subprocess.run(
            [str(root / "run_autograder")],
            env={
                "AUTOGRADER_ROOT": str(root),
                "AUTOGRADER_PYTHON": sys.executable,
                "PATH": "/usr/bin:/bin",
            },
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        results = json.loads((root / "results" / "results.json").read_text())
        assert sum(t["max_score"] for t in results["tests"]) == 8
        scores[name] = results["score"]
    assert scores == {"solution": 8, "blank": 0}


def test_make_gradescope_needs_an_assignment():
    done = subprocess.run(["make", "-s", "gradescope"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and "ASSIGNMENT=" in done.stdout + done.stderr

"""What ``grade`` writes besides the table: the class report, the learner's HTML feedback in
nbgrader's layout, Gradescope's results.json and the LMS gradebook CSV.

Most tests build a small class of ``Graded`` rows directly (grading is slow: sandboxes); one goes
end to end through ``grade_class``. Pages are read back with the standard library's parser.
"""

from __future__ import annotations

import base64
import csv
import json
import os
import subprocess
import sys
from datetime import datetime
from html.parser import HTMLParser

import pytest
from test_grade import CORRECT, INVERTED, MASKS, read_table, submit

from autograder.core.assignment import assignment
from autograder.core.mistakes import MISTAKES
from autograder.core.result import Result
from autograder.grade.grading import grade_class
from autograder.grade.outputs import class_report, exports, feedback, sections
from autograder.grade.outputs.wording import label
from autograder.grade.outputs.write import write_outputs
from autograder.grade.results import (
    BLANK,
    GRADED,
    LATE,
    NOT_SUBMITTED,
    UNREADABLE,
    Graded,
    GradeTable,
    notebook_order,
    safe_name,
)
from autograder.questions import QUESTIONS

QKT = "02_qkt"
HOSTILE = "<script>alert(1)</script>"
HOSTILE_FOLDER = "<img src=x onerror=alert(1)>"  # a folder name has no slash
MARKUP = "got <b>bold</b> <img src=x onerror=alert(2)> instead"
PNG = b"\x89PNG\r\n\x1a\n"


class Page(HTMLParser):
    """A page as data: its tables (rows of cell texts), images, tag names and text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.images: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(attrs["src"])

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def table(self, first_header: str) -> list[dict[str, str]]:
        """The rows of the table whose first header is ``first_header``, as dicts."""
        for t in self.tables:
            if t[0][0] == first_header:
                return [dict(zip(t[0], row, strict=True)) for row in t[1:]]
        raise AssertionError(f"no table headed {first_header!r}")

    def tables_headed(self, first_header: str) -> list[list[dict[str, str]]]:
        return [
            [dict(zip(t[0], row, strict=True)) for row in t[1:]]
            for t in self.tables
            if t[0][0] == first_header
        ]


def points_of(lesson: str) -> dict[str, float]:
    work = assignment(lesson)
    found = {ex.name: float(ex.points) for ex in work.exercises}
    return found | {f"answer_{q}": float(QUESTIONS[q].points) for q in work.questions}


def graded(
    student: str,
    name: str = MASKS,
    status: str = GRADED,
    failed: dict[str, str | None] | None = None,
    attempted: bool = True,
    **fields,
) -> Graded:
    """A row whose items all pass except ``failed`` (item -> its mistake id, or None)."""
    lesson = name[:2]
    values = points_of(lesson)
    failed = failed or {}
    results = [
        Result(item, False, 0.0, values[item], MARKUP, failed[item], attempted)
        if item in failed
        else Result(item, True, values[item], values[item], "all checks passed", None)
        for item in notebook_order(lesson)
    ]
    if status in (UNREADABLE, NOT_SUBMITTED):
        results = []
    max_points = sum(values.values())
    return Graded(student, name, status, max_points, f"{name}.ipynb", results, **fields)


def small_class() -> list[Graded]:
    everything = {item: "not-defined" for item in notebook_order("04")}
    late = datetime(2026, 12, 2, 9, 30)
    return [
        graded("ada"),
        graded("ada", QKT),
        graded(
            HOSTILE, failed={"causal_mask": "causal-upper-triangle", "softmax": "softmax-unstable"}
        ),
        graded(
            "bob",
            status=LATE,
            failed={"causal_mask": "causal-upper-triangle", "padding_mask": None},
            submitted=late,
            notes=["submitted 2026-12-02 09:30 UTC, 9.5 hours after the due date; no penalty"],
        ),
        graded("bea", status=BLANK, failed=everything, attempted=False),
        graded(HOSTILE, status=UNREADABLE, error="not valid JSON: <oops> at line 1"),
        graded("nos", status=NOT_SUBMITTED),
        graded("nos", QKT, failed={"answer_02_1": None}),
    ]


def test_the_class_report_says_what_to_re_teach(tmp_path):
    rows = small_class()
    page = Page(class_report.report_html(rows, ignored=["ada/04_old"]))

    # learner text stays text: no element comes from a name or a message
    assert "script" not in page.tags and page.tags.count("img") == len(page.images)
    text = "".join(page.text)
    assert HOSTILE in text and "not valid JSON: <oops> at line 1" in text

    # pass rates: of the submissions received (graded, late, blank, unreadable), per assignment
    qkt, masks = page.tables_headed("Exercise or question")
    rates = {r["Exercise or question"]: (r["Passed"], r["Received"], r["Pass rate"]) for r in masks}
    assert list(rates) == [label(i) for i in notebook_order("04")]  # notebook order
    assert rates["causal_mask"] == ("1", "5", "20%")  # ada only; the blank and unreadable count
    assert rates["softmax"] == ("2", "5", "40%")  # ada, bob
    assert rates["padding_mask"] == ("2", "5", "40%")  # ada, hal
    assert rates["Question 04.1"] == ("3", "5", "60%")
    assert "Every figure below is of the 5 submissions received" in " ".join(text.split())
    assert {r["Exercise or question"]: r["Pass rate"] for r in qkt}["Question 02.1"] == "50%"

    # the named mistakes, most frequent first; a blank notebook's "not defined" is no mistake
    mistakes = page.table("Mistake")
    assert [(m["Mistake"], m["Times"], m["Students"]) for m in mistakes] == [
        ("causal-upper-triangle", "2", "2"),
        ("softmax-unstable", "1", "1"),
    ]
    top = mistakes[0]
    assert top["Title"] == MISTAKES["causal-upper-triangle"].title
    assert top["Lesson section"] == "04_softmax_masks.ipynb, section “Common mistakes”"
    assert "causal_mask (04_softmax_masks) ×2" in top["Where made"]
    assert "2 other failures named no known mistake" in text  # bob's padding_mask, nos's 02_1
    # the last count said ends its sentence (not "...feedback); The Who column")
    assert "in each student's feedback). The Who column" in text, text
    assert "not attempted (not defined" not in text  # bea's blank: not counted; 0 is not said
    assert {m["Mistake"]: m["Who"] for m in mistakes}["causal-upper-triangle"] == f"{HOSTILE}, bob"

    # who could not be graded and why; who was late
    problems = {
        (r["Student"], r["Assignment"]): (r["Status"], r["Why"]) for r in page.table("Student")
    }
    assert problems == {
        ("bea", MASKS): ("blank", "nothing attempted in the notebook"),
        (HOSTILE, MASKS): ("unreadable", "not valid JSON: <oops> at line 1"),
        ("nos", MASKS): ("not-submitted", "nothing submitted"),
    }
    late = page.tables_headed("Student")[1]
    assert [(r["Student"], r["Submitted"]) for r in late] == [("bob", "2026-12-02 09:30 UTC")]
    assert "ada/04_old: not an assignment of the course" in text

    # plots: the mistakes, then a pass-rate bar plot and a histogram per assignment, as PNGs
    assert len(page.images) == 1 + 2 * 2
    for src in page.images:
        head, data = src.split(",", 1)
        assert head == "data:image/png;base64"
        assert base64.b64decode(data, validate=True).startswith(PNG)
    assert "http" not in "".join(page.images) and "link" not in page.tags  # nothing fetched


def test_the_score_distribution_counts_every_submission():
    rows = small_class()
    section = class_report._assignment_section(rows, MASKS)
    # ada 8, the hostile one 6, bob 6, bea 0, zed 0 (unreadable counts; not-submitted does not)
    assert "of the 5 submissions received" in section and "Mean 4.00, median 6" in section


def test_the_learner_page_names_the_mistake_and_the_section_to_re_read():
    row = small_class()[2]  # hal
    page = Page(feedback.feedback_html(row))
    assert "script" not in page.tags and "b" not in page.tags
    results = {r["Exercise or question"]: r for r in page.table("Exercise or question")}
    assert (
        results["causal_mask"]["Result"] == "failed" and results["causal_mask"]["Points"] == "0/1"
    )
    found = results["causal_mask"]["What the grader found"]
    assert MARKUP in found
    assert MISTAKES["causal-upper-triangle"].title in found
    assert "Re-read: 04_softmax_masks.ipynb, section “Common mistakes”" in found
    assert results["masked_scores"]["Result"] == "passed"
    text = "".join(page.text)
    assert "Score: 6/8 (6 of 8 passed)." in " ".join(text.split())  # as the text feedback


def test_the_learner_page_says_what_a_passed_item_taught_as_the_text_feedback_does():
    """An instructor's trial: the text feedback said "correct. 1 + 2 + ... + 6 = 21" under a
    passed question, the HTML page (what nbgrader's release_feedback hands out) nothing."""
    said = "correct. 1 + 2 + ... + 6 = 21"
    row = Graded(
        "ada",
        "02_qkt",
        GRADED,
        2.0,
        notebook="02_qkt.ipynb",
        results=[
            Result("answer_02_1", True, 1.0, 1.0, said, None),
            Result("attention_scores", True, 1.0, 1.0, "all checks passed", None),
        ],
    )
    page = Page(feedback.feedback_html(row))
    found = {
        r["Exercise or question"]: r["What the grader found"]
        for r in page.table("Exercise or question")
    }
    assert said in found["Question 02.1"]
    assert found["attention_scores"] == ""  # nothing to add: as the text feedback, no line


def test_sections_prefer_the_assignments_own_lesson():
    cites = sections.citations()
    assert len(cites["causal-upper-triangle"]) >= 2  # lesson 00 shows it, lesson 04 teaches it
    assert sections.section("causal-upper-triangle", "00_setup").lesson == "00_setup"
    assert sections.section("causal-upper-triangle").lesson == "04_softmax_masks"  # its owner
    assert sections.section("no-such-mistake") is None and sections.section(None) is None


def test_a_chinese_reader_is_pointed_to_the_chinese_notebooks_section():
    """A Chinese instructor's trial: the report and the feedback pointed to “Common mistakes”,
    a heading the Chinese notebook does not have (its section is “常见错误”)."""
    from autograder import i18n

    english = {m: sections.section(m, "04") for m in sections.citations()}
    with i18n.use("zh-CN"):
        chinese = {m: sections.section(m, "04") for m in sections.citations()}
    assert chinese.keys() == english.keys()  # the edition cites every mistake the English does
    assert {m: s.lesson for m, s in chinese.items()} == {m: s.lesson for m, s in english.items()}
    assert str(chinese["fill-overflows-fp16"]) == "04_softmax_masks.ipynb, section “常见错误”"
    assert str(english["fill-overflows-fp16"]).endswith("section “Common mistakes”")


@pytest.mark.slow
def test_feedback_pages_are_released_by_nbgrader(tmp_path, venv_on_path):
    """``nbgrader release_feedback`` hands our pages out, under the names fetch_feedback
    computes from the submission's secret."""
    from nbgrader.utils import notebook_hash

    course = tmp_path / "course"
    submitted = course / "submitted"
    for student in ("ada", "bob"):
        folder = submitted / student / MASKS
        folder.mkdir(parents=True)
        (folder / "timestamp.txt").write_text("2026-11-30 09:30:00.000000 UTC")
        (folder / "submission_secret.txt").write_text(f"secret-of-{student}")
    rows = [graded("ada"), graded("bob", failed={"causal_mask": "causal-upper-triangle"})]
    table = GradeTable(rows, course / "grades.csv", course / "feedback", submissions=submitted)
    feedback.write_html(table)
    assert not table.notes  # every page can be released
    page = course / "feedback" / "bob" / MASKS / f"{MASKS}.html"
    assert (page.parent / "submission_secret.txt").read_text() == "secret-of-bob"

    exchange = tmp_path / "exchange"
    exchange.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbgrader",
            "release_feedback",
            MASKS,
            "--course",
            "c101",
            f"--Exchange.root={exchange}",
            f"--CourseDirectory.root={course}",
        ],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for student in ("ada", "bob"):
        name = notebook_hash(secret=f"secret-of-{student}", notebook_id=MASKS)
        released = exchange / "c101" / "feedback" / f"{name}.html"
        expected = course / "feedback" / student / MASKS / f"{MASKS}.html"
        assert released.read_text() == expected.read_text()


def test_pages_nbgrader_cannot_release_are_named(tmp_path):
    table = GradeTable([graded("ada")], tmp_path / "g.csv", tmp_path / "fb", submissions=None)
    feedback.write_html(table)
    assert (tmp_path / "fb" / "ada" / MASKS / f"{MASKS}.html").is_file()
    assert "1 feedback folder without timestamp.txt or submission_secret.txt" in table.notes[0]


def test_an_output_that_fails_leaves_the_grades_and_the_other_outputs(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("no space left for plots")

    monkeypatch.setattr(class_report, "write", broken)
    table = GradeTable(small_class(), tmp_path / "grades.csv", tmp_path / "fb")
    write_outputs(table, [], regrading=False)
    assert len(read_table(tmp_path / "grades.csv")) == len(small_class())
    assert (tmp_path / "grades_lms.csv").is_file() and not (
        tmp_path / "grades_report.html"
    ).exists()
    assert "the class report could not be written: RuntimeError: no space left" in table.summary()
    assert set(table.outputs) == {
        "HTML feedback",
        "Gradescope results",
        "LMS gradebook CSV",
        "Canvas gradebook CSV",
    }


def test_gradescope_results_sum_to_the_score():
    for row in small_class():
        results = exports.gradescope_results(row)
        json.dumps(results)  # plain JSON
        assert set(results) >= {"score", "tests", "output"}
        for t in results["tests"]:
            assert set(t) >= {"name", "score", "max_score", "status", "output"}
            assert t["status"] in ("passed", "failed") and 0 <= t["score"] <= t["max_score"]
        assert sum(t["score"] for t in results["tests"]) - row.penalty == results["score"]
        assert sum(t["max_score"] for t in results["tests"]) == row.max_points
    hostile = exports.gradescope_results(small_class()[2])
    failed = {t["name"]: t for t in hostile["tests"] if t["status"] == "failed"}
    assert set(failed) == {"causal_mask", "softmax"}
    assert "Re-read: 04_softmax_masks.ipynb" in failed["causal_mask"]["output"]
    note = (
        "submitted 2026-12-02 09:30 UTC, 9.5 hours after the due date; late penalty: -1.75 points"
    )
    lou = graded("lou", status=LATE, failed={"softmax": None}, penalty=1.75, notes=[note])
    late = exports.gradescope_results(lou)
    assert late["score"] == 7 - 1.75 and late["output"].count("late penalty: -1.75 points") == 1


def test_a_class_graded_end_to_end_writes_every_output(tmp_path):
    root = tmp_path / "submitted"
    submit(root, "ada", CORRECT, "answer_04_1 = 21")
    submit(root, "ada", CORRECT, assignment=QKT)
    submit(root, "zed", INVERTED, "answer_04_1 = 36")
    (submit(root, "bob", INVERTED).parent / "submission_secret.txt").write_text("s3cret")
    submit(root, HOSTILE_FOLDER, raw="{ not a notebook")
    out = tmp_path / "grades.csv"
    table = grade_class(root, out, workers=2, config=None)

    grades = read_table(out)
    with (tmp_path / "grades_lms.csv").open(newline="") as f:
        lms = list(csv.DictReader(f))
    assert list(lms[0]) == ["username", QKT, MASKS]
    assert {(r["username"], a): r[a] for r in lms for a in (QKT, MASKS)} == {
        (g["student"], g["assignment"]): g["total"] for g in grades
    }

    page = Page((tmp_path / "grades_report.html").read_text())
    assert HOSTILE_FOLDER in "".join(page.text)
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    mistakes = {m["Mistake"]: m["Times"] for m in page.table("Mistake")}
    assert mistakes == {"causal-mask-inverted": "2"}  # bob, zed; what they left out is no mistake

    for g in table.rows:
        fb = table.feedback_dir / safe_name(g.student) / g.assignment
        results = tmp_path / "grades_gradescope" / safe_name(g.student) / g.assignment
        if g.status == NOT_SUBMITTED:
            assert not fb.exists() and not results.exists()
            continue
        html = (fb / f"{MASKS if g.assignment == MASKS else QKT}.html").read_text()
        assert str(tmp_path) not in html
        assert json.loads((results / "results.json").read_text())["score"] == g.total
    assert (table.feedback_dir / "bob" / MASKS / "submission_secret.txt").read_text() == "s3cret"
    assert "class report" in table.summary() and "without timestamp.txt" in table.summary()

    # a regrade of one student keeps the rest of the class in the report and the exports
    os.remove(root / "bob" / MASKS / f"{MASKS}.ipynb")
    grade_class(root, out, workers=1, config=None, students=["bob"])
    page = Page((tmp_path / "grades_report.html").read_text())
    mistakes = {m["Mistake"]: m["Times"] for m in page.table("Mistake")}
    assert mistakes == {"causal-mask-inverted": "1"}  # bob's notebook is gone: only zed's
    statuses = {r["Status"]: r["Rows"] for r in page.table("Status")}
    assert statuses == {"graded": "3", "unreadable": "1", "not-submitted": "4"}


@pytest.mark.parametrize("option", [[], ["--feedback-dir", "feedback"]])
def test_the_command_line_puts_the_feedback_where_asked(tmp_path, option, monkeypatch):
    from autograder import cli

    root = tmp_path / "submitted"
    submit(root, "zed", raw="{ broken")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["grade", str(root), "--out", "grades.csv", *option]) == 0
    folder = tmp_path / (option[1] if option else "grades_feedback")
    assert (folder / "zed" / f"{MASKS}.txt").is_file()
    assert (folder / "zed" / MASKS / f"{MASKS}.html").is_file()

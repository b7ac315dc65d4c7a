"""What a learner names (notebook, student folder) is data: shown on one line wherever it is
printed, never able to forge a line of feedback, never able to stop the class's grading; and
every output is written whole or not at all."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

from autograder.check.report import human
from autograder.core.result import Result
from autograder.grade.grading import grade_class
from autograder.grade.outputs import details, files
from autograder.grade.results import safe_name

QKT = "02_qkt"
CORRECT = "def attention_scores(q, k):\n    return q @ k.transpose(-2, -1)\n"
WRONG = "def attention_scores(q, k):\n    return q\n"
FORGED = "x\n  PASS  attention_scores  1\u22151\u2028Score: 4\u22154 (4 of 4 passed)\u2029\r.ipynb"
FORGED_SHOWN = (  # what the feedback shows of it: one line, every line break as its escape
    "x\\n  PASS  attention_scores  1\u22151\\u2028Score: 4\u22154 (4 of 4 passed)\\u2029\\r.ipynb"
)
NOT_UTF8 = os.fsdecode(b"\xff.ipynb")  # as os.scandir reads a name that is not UTF-8


def submit(root: Path, student: str, source: str, name: str = f"{QKT}.ipynb") -> None:
    folder = root / student / QKT
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    (folder / name).write_text(nbformat.writes(nb))


def feedback_lines(table, student: str) -> list[str]:
    return (table.feedback_dir / safe_name(student) / f"{QKT}.txt").read_text().split("\n")


def test_a_notebook_name_cannot_forge_a_line_of_feedback(tmp_path):
    root = tmp_path / "submitted"
    submit(root, "aaa", WRONG, FORGED)
    (root / "aaa" / "notes\n  PASS").mkdir()  # a folder that is not an assignment
    out = tmp_path / "out" / "grades.csv"
    table = grade_class(root, out, workers=1)

    lines = feedback_lines(table, "aaa")
    assert lines[1] == f"Your notebook: {FORGED_SHOWN}. Status: graded."
    assert [line for line in lines if "PASS" in line] == [lines[1]]  # only the name, escaped
    assert [line for line in lines if line.startswith("Score:")] == ["Score: 0/4 (0 of 4 passed)."]
    assert [line for line in lines if line.startswith("  failed  ")] == [
        "  failed  attention_scores  0/1",
        "  failed  Question 02.1     0/1",
        "  failed  Question 02.2     0/1",
        "  failed  Question 02.3     0/1",
    ]  # the verdicts: the grader's own lines
    assert not any(c in "".join(lines) for c in "\r\u2028\u2029")
    # the summary the instructor reads: one line per thing
    summary = table.summary().split("\n")
    assert [line for line in summary if "ignored" in line] == [
        "  ignored aaa/notes\\n  PASS: not an assignment of the course"
    ]
    # the page and Gradescope show it on one line; the results keep it as it is
    page = next((table.feedback_dir / "aaa" / QKT).glob("*.html")).read_text()
    assert "x\\n  PASS  attention_scores" in page
    gradescope = out.with_name("grades_gradescope") / "aaa" / QKT / "results.json"
    assert "\n" not in "".join(t["output"] for t in json.loads(gradescope.read_text())["tests"])
    assert [g.notebook for g in details.load(out.with_name("grades_results.json"))] == [FORGED]


def test_the_check_report_shows_a_file_name_and_notes_on_one_line():
    failed = Result("attention_scores", False, 0.0, 1.0, "wrong shape", None)
    text = human("a\nPASS b.py", [failed], ["see\nScore: 1/1"])
    assert text.split("\n")[0] == "a\\nPASS b.py"
    assert sum(line.lstrip().startswith("Score") for line in text.split("\n")) == 1


def test_a_name_that_is_not_utf8_spoils_nobody_else(tmp_path):
    root = tmp_path / "submitted"
    submit(root, "aaa", CORRECT, NOT_UTF8)
    submit(root, os.fsdecode(b"b\xfeb"), CORRECT)  # a student folder that is not UTF-8 either
    submit(root, "ccc", CORRECT)
    out = tmp_path / "out" / "grades.csv"
    out.parent.mkdir()
    table = grade_class(root, out, workers=1)

    assert {g.student: (g.status, g.total) for g in table.rows} == {
        "aaa": ("graded", 1.0),
        os.fsdecode(b"b\xfeb"): ("graded", 1.0),
        "ccc": ("graded", 1.0),
    }
    assert feedback_lines(table, "aaa")[1] == "Your notebook: \\udcff.ipynb. Status: graded."
    assert "b\\udcfeb" in out.read_text(encoding="utf-8")  # every output is UTF-8
    for path in out.parent.rglob("*"):
        if path.is_file():
            path.read_text(encoding="utf-8")
    saved = details.load(out.with_name("grades_results.json"))
    assert {g.notebook for g in saved} == {NOT_UTF8, f"{QKT}.ipynb"}  # kept as it is

    # a regrade of that student (its name as argv reads it) replaces its row, keeps the others
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(WRONG)])
    (root / os.fsdecode(b"b\xfeb") / QKT / f"{QKT}.ipynb").write_text(nbformat.writes(nb))
    table = grade_class(root, out, workers=1, students=[os.fsdecode(b"b\xfeb")])
    assert {g.student: g.total for g in table.rows} == {os.fsdecode(b"b\xfeb"): 0.0}
    rows = out.read_text(encoding="utf-8").splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["aaa", "b\\udcfeb", "ccc"], rows
    assert [g.total for g in details.load(out.with_name("grades_results.json"))] == [1.0, 0.0, 1.0]


def test_a_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    path = tmp_path / "grades_results.json"
    path.write_text("the earlier results\n")

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        files.write_text(path, "new results\n")
    assert path.read_text() == "the earlier results\n"
    assert os.listdir(tmp_path) == [path.name]  # no temporary file left behind
    monkeypatch.undo()

    files.write_text(path, json.dumps({"name": NOT_UTF8}, ensure_ascii=False))
    assert json.loads(path.read_text(encoding="utf-8")) == {"name": NOT_UTF8}
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~files.UMASK)

"""Grading a class: parallel, isolated, read-only, reproducible, a table an instructor can trust.

One row per student and assignment, with a status; each submission scored only on its own
lesson's exercises and questions, against a maximum the course fixes; feedback that names what is
missing and never a server path; no link followed; nothing a student names can become a formula.
"""

from __future__ import annotations

import csv
import hashlib
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.grade import grading
from autograder.grade.grading import GradeError, due_dates, grade_class
from autograder.grade.outputs.table import csv_cell
from autograder.grade.results import safe_name

HOSTILE = Path(__file__).resolve().parents[1] / "sandbox" / "hostile"
RELEASE = Path(__file__).resolve().parents[2] / "notebooks"
MASKS = "04_softmax_masks"

CORRECT = """import torch
def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
def attention_scores(q, k):
    return torch.einsum('...qd,...kd->...qk', q, k)
"""
INVERTED = """import torch
def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).triu(1)
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
"""
RENAMED = CORRECT.replace("def causal_mask", "def make_causal_mask")
LESSON_05 = """
def scaled_dot_product_attention(q, k, v, mask=None):
    raise ValueError("a lesson-05 function pasted into lesson 04")
"""


def submit(
    root: Path, student: str, *sources: str, raw: str | None = None, assignment: str = MASKS
) -> Path:
    path = root / student / assignment / f"{assignment}.ipynb"
    path.parent.mkdir(parents=True)
    if raw is not None:
        path.write_text(raw)
    else:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
        nbformat.write(nb, path)
    return path


def digest(root: Path) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()
    }


def read_table(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def read_grades(path: Path, assignment: str = MASKS) -> dict[str, dict[str, str]]:
    return {r["student"]: r for r in read_table(path) if r["assignment"] == assignment}


def feedback(table, student: str, assignment: str = MASKS) -> str:
    return (table.feedback_dir / safe_name(student) / f"{assignment}.txt").read_text()


def test_a_class_with_hostile_and_broken_submissions_is_graded_fairly(tmp_path):
    root = tmp_path / "submitted"
    submit(root, "ada", CORRECT, "answer_04_1 = 21  # True entries of causal_mask(6)")
    submit(root, "bob", INVERTED, "answer_04_1 = 36")
    submit(root, "eve", (HOSTILE / "infinite_loop.py").read_text())
    submit(root, "mal", (HOSTILE / "exits_early.py").read_text())
    submit(root, "oom", (HOSTILE / "memory_bomb.py").read_text())
    submit(root, "zed", raw="{ not a notebook")
    before = digest(root)

    out = tmp_path / "grades.csv"
    table = grade_class(root, out, workers=2, time_limit=1.0)

    assert digest(root) == before  # submissions are never modified
    grades = read_grades(out)
    assert set(grades) == {"ada", "bob", "eve", "mal", "oom", "zed"}
    assert grades["ada"]["causal_mask"] == "1" and grades["ada"]["answer_04_1"] == "1"
    assert grades["bob"]["causal_mask"] == "0" and grades["bob"]["answer_04_1"] == "0"
    assert grades["eve"]["causal_mask"] == "0"
    assert grades["mal"]["total"] == "0" and grades["oom"]["total"] == "0"
    assert grades["zed"]["total"] == "0" and grades["zed"]["status"] == "unreadable"
    assert {g["max"] for g in grades.values()} == {"8"}  # 4 exercises, 4 questions
    # attention_scores is lesson 02's: not scored here, whoever defines it
    assert all("attention_scores" not in g for g in grades.values())

    assert "passed  causal_mask" in feedback(table, "ada")
    assert "Question 04.1: not quite" in feedback(table, "bob")
    assert "more than 1 s of CPU time" in feedback(table, "eve")  # which limit was hit
    assert "not valid JSON" in feedback(table, "zed")
    for student in grades:
        assert str(tmp_path) not in feedback(table, student)  # only their own file name

    again = tmp_path / "again.csv"
    grade_class(root, again, workers=1, time_limit=1.0)
    assert again.read_text() == out.read_text()  # a re-run gives the same table


def test_the_class_of_issue_13_grades_to_the_table_a_careful_human_would_write(tmp_path):
    root = tmp_path / "submitted"
    # ada: lesson 04 right, plus lesson 02's exercise and answer and a lesson-05 function pasted in
    submit(root, "ada", CORRECT, LESSON_05, "answer_04_1 = 21\nanswer_02_1 = (3, 5)")
    submit(root, "ada", CORRECT, "answer_02_1 = (3, 5)", assignment="02_qkt")
    submit(root, "ada", CORRECT, assignment="04_softmax_masks_old")  # not an assignment
    submit(root, "ren", RENAMED, "answer_04_1 = 21")  # renamed causal_mask
    blank = root / "bea" / MASKS
    blank.mkdir(parents=True)
    shutil.copy(RELEASE / MASKS / f"{MASKS}.ipynb", blank)  # the release, untouched
    submit(root, "zed", raw="{ not a notebook")
    late = submit(root, "lou", CORRECT, "answer_04_1 = 21")
    (late.parent / "timestamp.txt").write_text("2026-12-02 09:30:00.000000 UTC")
    ontime = submit(root, "oli", CORRECT)
    (ontime.parent / "timestamp.txt").write_text("2026-11-30 09:30:00.000000 UTC")
    submit(root, "nos", CORRECT, assignment="02_qkt")  # never submitted lesson 04

    out = tmp_path / "grades.csv"
    table = grade_class(root, out, workers=2, due=["2026-12-01 23:59 UTC"], config=None)
    rows = read_table(out)

    # one row per student and assignment, in a fixed order; columns in notebook order
    keys = [(r["student"], r["assignment"]) for r in rows]
    assert keys == sorted(
        (s, a) for s in ["ada", "bea", "lou", "nos", "oli", "ren", "zed"] for a in ["02_qkt", MASKS]
    )
    columns = list(rows[0])
    assert columns[:3] == ["student", "assignment", "status"] and columns[-6:] == [
        "penalty",
        "total",
        "max",
        "submitted",
        "manual",  # the items whose score an instructor set in formgrader
        "unread_cells",  # how many cells the grader could not read
    ]
    assert columns[3:-6] == [
        "attention_scores",
        "answer_02_1",
        "answer_02_2",
        "answer_02_3",
        "softmax",
        "causal_mask",
        "padding_mask",
        "masked_scores",
        "answer_04_1",
        "answer_04_2",
        "answer_04_3",
        "answer_04_4",
    ]
    masks, qkt = read_grades(out), read_grades(out, "02_qkt")
    status = {s: r["status"] for s, r in masks.items()}
    assert status == {
        "ada": "graded",
        "bea": "blank",
        "lou": "late",
        "nos": "not-submitted",
        "oli": "graded",
        "ren": "graded",
        "zed": "unreadable",
    }
    # the maximum is the course's, whatever a submission defines; nothing counted twice
    assert {r["max"] for r in masks.values()} == {"8"} and {r["max"] for r in qkt.values()} == {"4"}
    assert masks["ada"]["total"] == "2" and qkt["ada"]["total"] == "2"  # causal_mask + 04_1
    assert masks["ada"]["attention_scores"] == masks["ada"]["answer_02_1"] == ""
    assert masks["ren"]["causal_mask"] == "0" and masks["ren"]["total"] == "1"
    assert masks["lou"]["total"] == "2" and masks["lou"]["submitted"] == "2026-12-02 09:30:00 UTC"
    assert masks["lou"]["penalty"] == ""  # no penalty unless the instructor gives one
    assert qkt["nos"]["status"] == "graded" and qkt["ada"]["status"] == "graded"
    assert qkt["bea"]["status"] == "not-submitted" and qkt["bea"]["total"] == "0"

    # the renamed exercise is in the feedback, as 0 of its points, with the name they used
    ren = feedback(table, "ren")
    assert "failed  causal_mask    0/1" in ren
    assert "causal_mask not found; you defined `make_causal_mask`" in ren
    assert "Score: 1/8" in ren  # the questions count in the feedback's total
    assert "Score: 0/8" in feedback(table, "bea")
    ada = feedback(table, "ada")
    assert "ignored `scaled_dot_product_attention`: it is an exercise of lesson 05" in ada
    assert "ignored `answer_02_1`: it is a question of lesson 02" in ada
    assert "9.5 hours after the due date (2026-12-01 23:59 UTC); no penalty" in feedback(
        table, "lou"
    )
    assert "Nothing was submitted" in feedback(table, "nos")
    summary = table.summary()
    assert "7 students, 2 assignments" in summary and "1 late" in summary
    assert "ignored ada/04_softmax_masks_old: not an assignment of the course" in summary
    assert "course; did you mean 04_softmax_masks?" in summary  # instructor trial 50


def test_one_student_or_assignment_is_regraded_in_place_with_a_late_penalty(tmp_path):
    root = tmp_path / "submitted"
    submit(root, "ada", CORRECT, "answer_04_1 = 21")
    submit(root, "bob", raw="{ broken")
    submit(root, "bob", raw="{ broken", assignment="02_qkt")
    out = tmp_path / "grades.csv"
    grade_class(root, out, workers=2)
    before = {(r["student"], r["assignment"]): r for r in read_table(out)}
    assert before[("bob", MASKS)]["status"] == "unreadable"

    shutil.rmtree(root / "bob" / MASKS)
    fixed = submit(root, "bob", INVERTED, "answer_04_1 = 21")  # 1 point: the answer
    (fixed.parent / "timestamp.txt").write_text("2026-12-02 00:00:00 UTC")
    table = grade_class(
        root,
        out,
        workers=1,
        students=["bob"],
        assignments=[MASKS],
        due=[f"{MASKS}=2026-12-01 12:00 UTC"],
        late_penalty=0.25,
    )

    after = {(r["student"], r["assignment"]): r for r in read_table(out)}
    assert list(after) == list(before)  # same rows, same order
    bob = after[("bob", MASKS)]
    assert (bob["status"], bob["penalty"], bob["total"]) == ("late", "0.25", "0.75")
    assert "late penalty: -0.25 points" in feedback(table, "bob")
    assert "Score: 0.75/8 (1 of 8 passed), after a late penalty of 0.25 points." in feedback(
        table, "bob"
    )
    for key in [("ada", MASKS), ("ada", "02_qkt"), ("bob", "02_qkt")]:
        assert after[key] == before[key]


def test_a_mistyped_student_is_refused_before_anything_is_graded_or_written(tmp_path):
    """An instructor's trial: `--student davee` made up a row of 0 points for a student who does
    not exist, in the table and the LMS files, and a feedback folder."""
    root = tmp_path / "submitted"
    submit(root, "dave", CORRECT)
    out = tmp_path / "grades" / "grades.csv"
    with pytest.raises(GradeError, match="--student davee: no such student .*did you mean dave"):
        grade_class(root, out, students=["davee"], assignments=[MASKS], config=None)
    assert not out.parent.exists()


def test_links_are_refused_and_never_followed(tmp_path):
    secret = tmp_path / "elsewhere" / MASKS
    secret.mkdir(parents=True)
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CORRECT)]),
        secret / f"{MASKS}.ipynb",
    )
    root = tmp_path / "submitted"
    (root / "dir").mkdir(parents=True)
    (root / "dir").rmdir()
    (root / "dir").symlink_to(tmp_path / "elsewhere")  # the student's folder is a link
    (root / "sub").mkdir()
    (root / "sub" / MASKS).symlink_to(secret)  # the assignment folder is a link
    (root / "nb" / MASKS).mkdir(parents=True)
    (root / "nb" / MASKS / f"{MASKS}.ipynb").symlink_to(secret / f"{MASKS}.ipynb")

    out = tmp_path / "grades.csv"
    table = grade_class(root, out, workers=1)
    grades = read_grades(out)
    assert {s: (r["status"], r["total"]) for s, r in grades.items()} == {
        "dir": ("unreadable", "0"),
        "nb": ("unreadable", "0"),
        "sub": ("unreadable", "0"),
    }
    assert "symbolic link" in feedback(table, "dir") and "symbolic link" in feedback(table, "nb")
    assert str(tmp_path) not in feedback(table, "nb")


def test_names_cannot_become_formulas_or_paths(tmp_path):
    root = tmp_path / "submitted"
    names = ['=HYPERLINK("x","hi")', "+1", "-2", "@SUM(A1)", "a b", "ok"]
    for name in names:
        submit(root, name, raw="{ broken")
    out = tmp_path / "grades.csv"
    table = grade_class(root, out, workers=1)
    with out.open(newline="") as f:
        cells = [row[0] for row in csv.reader(f)][1:]
    assert sorted(cells) == sorted("'" + n if n[0] in "=+-@" else n for n in names)
    files = sorted(p.relative_to(table.feedback_dir) for p in table.feedback_dir.rglob("*.txt"))
    assert len(files) == len(names) and all(
        re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", p.parent.name) for p in files
    )
    assert all(p.parts[0][0].isalnum() or p.parts[0][0] == "_" for p in files)
    assert csv_cell("\tx") == "'\tx" and csv_cell("1") == "1"
    assert safe_name("a/b") != safe_name("a_b") and safe_name("ada") == "ada"


def test_a_name_in_another_script_keeps_its_folder_and_hidden_characters_do_not():
    """A Chinese instructor's trial: 张伟's feedback went to `__-a3a0bafd0beed44d`, which no output
    linked to 张伟 and `nbgrader release_feedback` (feedback/<student id>/) does not find."""
    assert safe_name("张伟") == "张伟" and safe_name("Zoë_2") == "Zoë_2"
    for hidden in ("张\u202e伟", "a\u200bb", "a b", "a\nb", "a\u2215b", "..", "-x"):
        assert safe_name(hidden) != hidden and "-" in safe_name(hidden)[1:], hidden


def test_grade_refuses_a_weak_sandbox_unless_the_risk_is_named(tmp_path, monkeypatch, capsys):
    root = tmp_path / "submitted"
    submit(root, "zed", raw="{ broken")
    monkeypatch.setattr(grading, "strong_isolation_available", lambda: False)
    out = tmp_path / "grades.csv"
    assert cli.main(["grade", str(root), "--out", str(out)]) == 2
    assert "--allow-weak-sandbox" in capsys.readouterr().err and not out.exists()
    with pytest.raises(GradeError, match="bubblewrap"):
        grade_class(root, out)
    # a class where every submission failed was still graded: exit 0, and says so
    assert cli.main(["grade", str(root), "--out", str(out), "--allow-weak-sandbox"]) == 0
    assert "Graded the class" in capsys.readouterr().out
    assert read_grades(out)["zed"]["status"] == "unreadable"


def test_due_dates_come_from_the_config_and_the_command_line(tmp_path):
    config = tmp_path / "nbgrader_config.py"
    config.write_text(
        "c = get_config()\n"
        "c.Autograder.due_dates = {'04_softmax_masks': '2026-12-01 23:59:00 UTC',"
        " '03_scaling': '2026-11-24 12:00:00 Europe/Paris'}\n"
    )
    dates = due_dates(["03_scaling=2026-11-25 12:00 UTC"], config)
    assert f"{dates[MASKS]:%Y-%m-%d %H:%M}" == "2026-12-01 23:59"
    assert f"{dates['03_scaling']:%Y-%m-%d %H:%M}" == "2026-11-25 12:00"  # the command line wins
    assert None not in dates
    assert f"{due_dates(['2026-12-01'], None)[None]:%Y-%m-%d}" == "2026-12-01"
    with pytest.raises(GradeError, match="cannot read the due date"):
        due_dates(["next tuesday-ish"], None)


def test_a_timestamp_that_cannot_be_read_is_said_once_and_in_the_class_summary(tmp_path):
    """An instructor's trial: with a due date, a garbage timestamp.txt graded without the
    lateness check, said only in the student's feedback, twice and contradicting itself ("could
    not be read", then "no timestamp.txt"), and the class report said no one was late."""
    root = tmp_path / "submitted"
    (submit(root, "ada", CORRECT).parent / "timestamp.txt").write_text("the day before yesterday")
    (submit(root, "bob", CORRECT).parent / "timestamp.txt").write_text("2026-11-30 10:00:00 UTC")
    submit(root, "cy", CORRECT)  # no timestamp.txt at all
    table = grade_class(
        root, tmp_path / "grades.csv", assignments=[MASKS], due=["2026-12-01"], config=None
    )
    ada = feedback(table, "ada")
    assert "timestamp.txt could not be read" in ada and "no timestamp.txt" not in ada
    said = [n for n in table.notes if n.startswith("lateness not checked")]
    unchecked = f"ada/{MASKS}, cy/{MASKS}"
    assert said == [
        f"lateness not checked (no readable timestamp.txt) for 2 submissions: {unchecked}"
    ]


def test_the_sandbox_lent_to_a_class_is_the_processs_own_again_and_nothing_restarts(tmp_path):
    """The warm grader lends its own sandbox to ``grade`` (the first notebook takes it): after the
    class it is the grader's own again, reset and alive, and the class's other sandbox is a spare,
    so that the next request starts none (it had been closed and restarted after every class:
    a sandbox's start, seconds of CPU, beside the next request)."""
    from autograder.sandbox.host import pool

    root = tmp_path / "submitted"
    for student in ("ada", "bea", "cy"):
        submit(root, student, CORRECT if student != "bea" else INVERTED)
    pool.close_kept()  # what earlier classes in this process left as spares
    own = pool.default_server()
    assert own.wait_ready(120)
    pool.lend_default()
    grade_class(root, tmp_path / "grades.csv", workers=2, config=None)
    spares = list(pool._spares)
    try:
        assert pool.started_default() is own and own.alive()
        assert len(spares) == 1 and spares[0] is not own and spares[0].alive()
        first = {r["student"]: r["total"] for r in read_table(tmp_path / "grades.csv")}
        pool.lend_default()  # a second class: the same two sandboxes, the same grades
        grade_class(root, tmp_path / "again.csv", workers=2, config=None)
        assert pool.started_default() is own and pool._spares == spares
        assert {r["student"]: r["total"] for r in read_table(tmp_path / "again.csv")} == first
        assert first["bea"] != first["ada"] == first["cy"]
    finally:
        pool.close_kept()


SEES_OTHERS = """import os, time
def softmax(x, dim=-1):
    most, t0 = 0, time.time()
    while time.time() - t0 < 2:  # both students' notebooks are being graded meanwhile
        most = max(most, len([f for f in os.listdir("/tmp") if f.startswith("submission-")]))
        time.sleep(0.05)
    raise RuntimeError(f"working folders seen: {most}")
"""


def test_a_grade_that_graded_nothing_leaves_the_lent_sandbox_lent_to_no_one(tmp_path):
    """Red team round 24: the warm grader lends its sandbox to each ``grade`` request; one that
    ended before grading (a mistyped folder) left it among the spares, the next lent it again,
    and two students' notebooks ran at once in one sandbox (each killed the other's processes
    and saw its working folder). Lending is once, and taken back when the request ends."""
    from autograder.sandbox.host import pool

    root = tmp_path / "submitted"
    for student in ("ada", "bea"):
        submit(root, student, SEES_OTHERS)
    pool.close_kept()
    own = pool.default_server()
    assert own.wait_ready(120)
    try:
        pool.lend_default()
        with pytest.raises(GradeError):  # the first request grades nothing
            grade_class(tmp_path / "no_such_folder", tmp_path / "x.csv", workers=2, config=None)
        pool.lend_default()  # the next request lends it again: once
        table = grade_class(root, tmp_path / "grades.csv", workers=2, config=None)
        seen = [r.message for g in table.rows for r in g.results if r.exercise == "softmax"]
        assert len(seen) == 2 and all("working folders seen: 1" in m for m in seen), seen
        pool.lend_default()
        pool.reclaim_default()  # what the warm grader does when any request ends
        assert own not in pool._spares and pool.started_default() is own
    finally:
        pool.close_kept()

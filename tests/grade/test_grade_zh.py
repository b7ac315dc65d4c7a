"""``grade`` under a Chinese locale: what the instructor reads in the terminal, the feedback and
the class report is Chinese (a trial: the terminal was all English, and the status words, the
late note and the tracebacks' "cell N, line M" stayed English in the Chinese feedback); the ids
(the CSV's values, JSON's) stay English; and what is kept for a regrade is data, so a later run
in English says it in English."""

from __future__ import annotations

import csv
import gettext
import json
import re
from pathlib import Path

import pytest
from test_grade import CORRECT, MASKS, submit

from autograder import cli, i18n
from autograder.grade.results import safe_name

MO = Path(i18n.LOCALE_DIR) / "zh_CN" / "LC_MESSAGES" / "autograder.mo"
CJK = re.compile("[\u4e00-\u9fff]")
DUE = f"{MASKS}=2026-12-01 23:00 UTC"
NAME_ERROR = "import torch\ndef softmax(x, dim=-1):\n    y = x * 2\n    return undefined_helper(y)"


def zh(text: str) -> str:
    with open(MO, "rb") as f:
        return gettext.GNUTranslations(f).gettext(text)


@pytest.fixture
def language(monkeypatch):
    """Set the locale (``zh_CN.UTF-8`` or ``C.UTF-8``); nothing else chooses the language."""
    for name in (*i18n.LOCALE_VARIABLES, i18n.ENV, "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)

    def set_to(locale: str) -> None:
        monkeypatch.setenv("LANG", locale)

    return set_to


@pytest.fixture(scope="module")
def submitted(tmp_path_factory) -> Path:
    """ada on time, bob late, cy blank, dan with a NameError and a cell that cannot be read."""
    root = tmp_path_factory.mktemp("zh") / "submitted"
    for student, sources, stamp in [
        ("ada", [CORRECT, "answer_04_1 = 21"], "2026-12-01 22:30:00 UTC"),
        ("bob", [CORRECT, "answer_04_1 = 21"], "2026-12-01 23:30:00 UTC"),
        ("cy", ["x = 1"], "2026-12-01 10:00:00 UTC"),
        ("dan", [NAME_ERROR, "def causal_mask(:\n    pass\n"], "2026-12-01 10:00:00 UTC"),
    ]:
        (submit(root, student, *sources).parent / "timestamp.txt").write_text(stamp)
    return root


def grade(capsys, root: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    args = ["grade", str(root), "--out", str(out), "--workers", "2", *extra]
    status = cli.main(args)
    said = capsys.readouterr()
    return status, said.out, said.err


def text_feedback(out: Path, student: str) -> str:
    return (out.with_name(out.stem + "_feedback") / safe_name(student) / f"{MASKS}.txt").read_text()


def html_feedback(out: Path, student: str) -> str:
    folder = out.with_name(out.stem + "_feedback") / safe_name(student) / MASKS
    return (folder / f"{MASKS}.html").read_text()


def test_grade_speaks_chinese_under_a_chinese_locale_and_keeps_its_ids(
    submitted, tmp_path, capsys, language
):
    language("zh_CN.UTF-8")
    out = tmp_path / "grades" / "grades.csv"
    status, said, err = grade(capsys, submitted, out, "--due", DUE, "--late-penalty", "0.1")
    assert status == 0, err
    # the terminal: the summary, the outputs, the notes; the progress bar's words
    head = said.splitlines()[0]
    assert head.startswith("全班评分完成：4 名学习者，1 份作业 -> "), head
    for counted in ("{n} graded", "{n} late", "{n} blank"):
        assert zh(counted).format(n=1 if "graded" not in counted else 2) in head, head
    for name in ("HTML feedback", "class report", "Gradescope results", "LMS gradebook CSV"):
        assert f"  {zh(name)}：" in said
    assert "  注意：截止时间：04_softmax_masks 2026-12-01 23:00 UTC" in said, said
    assert "dan/04_softmax_masks（1 个单元格）" in said and "份提交中有未被读入的单元格" in said
    assert zh("grading") in err and "grading" not in err
    english = ("Graded the class", "note:", " late", " graded", "feedback in", "cells not read")
    assert not [e for e in english if e in said], said
    # the feedback: the status, the late note, the score after the penalty
    with out.open(newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    penalty, total = rows["bob"]["penalty"], rows["bob"]["total"]
    assert float(penalty) > 0
    bob = text_feedback(out, "bob")
    assert bob.splitlines()[:2] == [f"反馈：{MASKS}", f"你的笔记本：{MASKS}.ipynb。状态：迟交。"]
    assert "提交于 2026-12-01 23:30 UTC，比截止时间（2026-12-01 23:00 UTC）晚 0.5 小时" in bob
    assert f"迟交罚分：-{penalty} 分" in bob and f"，已扣除迟交罚分 {penalty} 分。" in bob, bob
    assert f"得分：{total}/8（" in bob, bob
    for leftover in ("submitted", "after the due date", "late penalty", "After the late"):
        assert leftover not in bob, bob
    page = html_feedback(out, "bob")
    assert "<strong>迟交</strong>" in page and "提交于 2026-12-01 23:30 UTC" in page
    assert ">late<" not in page and "after the due date" not in page
    assert text_feedback(out, "ada").splitlines()[1].endswith("状态：已评分。")
    assert text_feedback(out, "cy").splitlines()[1].endswith("状态：空白。")
    # a traceback and a cell not read, inside Chinese sentences: their places in Chinese too
    dan = text_feedback(out, "dan")
    assert "  第 1 个单元格，第 4 行，softmax 中：return undefined_helper(y)" in dan, dan
    assert '第 2 个单元格 ("def causal_mask(:") 的第 1 行有语法错误' in dan, dan
    assert not re.search(r"\bcell \d|, line \d|, in softmax", dan), dan
    assert "第 1 个单元格，第 4 行" in html_feedback(out, "dan")
    # the class report: the status words, the counts, the late table's delay
    report = out.with_name("grades_report.html").read_text()
    assert "4 名学习者：已评分 2 份，迟交 1 份，空白 1 份。" in report
    assert "<td>迟交</td>" in report and "<td>已评分</td>" in report
    assert "<td>2026-12-01 23:30 UTC</td>" in report and "<td>0.5 小时</td>" in report
    assert not re.search(r"\d (graded|late|blank)\b|after the due date|<td>late</td>", report)
    # the ids stay English: the CSV's status values, the results kept for a regrade
    assert [rows[s]["status"] for s in ("ada", "bob", "cy", "dan")] == [
        "graded",
        "late",
        "blank",
        "graded",
    ]
    kept = json.loads(out.with_name("grades_results.json").read_text())["rows"]
    late = next(r for r in kept if r["student"] == "bob")
    assert late["status"] == "late" and not any(CJK.search(n) for n in late["notes"])

    # a regrade in English: the rows kept are said in English (they were kept as data)
    language("C.UTF-8")
    status, said, err = grade(capsys, submitted, out, "--student", "ada")
    assert status == 0, err
    assert said.startswith("Regraded 1 student, 1 assignment, the table's other rows kept -> ")
    assert not CJK.search(said), said
    report = out.with_name("grades_report.html").read_text()
    assert "4 students: 2 graded, 1 late, 1 blank." in report
    assert "<td>2026-12-01 23:30 UTC</td>" in report and "<td>0.5 hours</td>" in report
    assert "<td>late</td>" in report and "迟交" not in report


def test_grade_stays_english_under_an_english_locale(submitted, tmp_path, capsys, language):
    language("C.UTF-8")
    out = tmp_path / "grades.csv"
    status, said, err = grade(capsys, submitted, out, "--due", DUE)
    assert status == 0, err
    assert said.startswith("Graded the class: 4 students, 1 assignment -> ")
    assert said.splitlines()[0].endswith(": 2 graded, 1 late, 1 blank")
    assert "  note: due: 04_softmax_masks 2026-12-01 23:00 UTC" in said
    assert "  HTML feedback: " in said and not CJK.search(said + err)
    bob = text_feedback(out, "bob")
    assert bob.splitlines()[1] == f"Your notebook: {MASKS}.ipynb. Status: late."
    assert "submitted 2026-12-01 23:30 UTC, 0.5 hours after the due date" in bob
    assert "; no penalty" in bob and not CJK.search(bob)
    dan = text_feedback(out, "dan")
    assert "  cell 1, line 4, in softmax: return undefined_helper(y)" in dan, dan
    assert 'cell 2 ("def causal_mask(:") has a syntax error on line 1' in dan


def test_grades_errors_are_chinese_under_a_chinese_locale(submitted, tmp_path, capsys, language):
    language("zh_CN.UTF-8")
    out = tmp_path / "grades.csv"
    status, said, err = grade(capsys, submitted, out, "--student", "adaa")
    assert status == 2 and err.startswith("错误：--student adaa：没有这个学生"), err
    assert err.rstrip().endswith("；你是想写 ada 吗？"), err
    status, _said, err = grade(capsys, submitted, out, "--due", "Dec 32 2026")
    assert status == 2 and err.startswith("错误：无法读取截止时间 'Dec 32 2026'"), err
    status, _said, err = grade(capsys, submitted, out, "--due", "2026-12-01 23:59 Europe/Pairs")
    assert status == 2 and "未知的时区 'Europe/Pairs'" in err, err
    status, _said, err = grade(capsys, submitted, out, "--assignment", "04_softmax_mask")
    assert status == 2 and "不是本课程的作业" in err and "你是想写 04_softmax_masks 吗" in err
    status, _said, err = grade(capsys, submitted, out, "--late-penalty", "2")
    assert status == 2 and err.startswith("错误：--late-penalty 是分数的比例"), err
    assert not out.exists()


def test_checks_errors_and_json_messages_follow_the_terminals_language(tmp_path, capsys, language):
    language("zh_CN.UTF-8")
    missing = tmp_path / "nonexist.ipynb"
    assert cli.main(["check", str(missing), "--no-daemon"]) == 2
    assert f"错误：{missing}：没有这个文件。" in capsys.readouterr().err
    assert cli.main(["check", str(missing), "--json", "--no-daemon"]) == 2
    said = capsys.readouterr()
    assert json.loads(said.out)["error"].startswith(f"{missing}：没有这个文件")
    mine = tmp_path / "mine.py"
    mine.write_text(CORRECT)
    assert cli.main(["check", str(mine), "--only", "causalmask", "--no-daemon"]) == 2
    err = capsys.readouterr().err
    assert "错误：没有名为 causalmask 的练习；你是想写 causal_mask 吗？" in err, err
    language("C.UTF-8")
    assert cli.main(["check", str(missing), "--json", "--no-daemon"]) == 2
    assert "no such file" in json.loads(capsys.readouterr().out)["error"]

"""Trial 37 (a Chinese-reading instructor, due date given as Asia/Shanghai): the times a student and
the instructor read are in the zone the due date was given in, with UTC beside where it helps, and
kept with the due date for a regrade; the CSV labels its times UTC; the text and the HTML feedback
say the same things in the same words (the score after the penalty, "问题 04.1", the section to
re-read); --late-penalty takes a percentage; the due date's hints are the reader's own."""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

import pytest
from test_grade import CORRECT, MASKS, submit
from test_grade_zh import CJK, grade, html_feedback, text_feedback

from autograder import i18n
from autograder.grade.outputs.table import read_table

DUE = f"{MASKS}=2026-12-01 23:59 Asia/Shanghai"  # 15:59 UTC
POLARITY = """import torch
def masked_scores(scores, mask):
    return scores.masked_fill(mask, float('-inf'))
"""
ITEMS = ("softmax", "causal_mask", "padding_mask", "masked_scores", "answer_04_1", "answer_04_2")
ITEMS += ("answer_04_3", "answer_04_4")
ZH_SCORE = "得分：{total}/8（8 项中通过 {passed} 项），已扣除迟交罚分 {penalty} 分。"
EN_SCORE = "Score: {total}/8 ({passed} of 8 passed), after a late penalty of {penalty} points."
ZH_REREAD = "重读：04_softmax_masks.ipynb 的“常见错误”一节。"
EN_REREAD = "Re-read: 04_softmax_masks.ipynb, section “Common mistakes”."


@pytest.fixture
def language(monkeypatch):
    """Set the locale (``zh_CN.UTF-8`` or ``C.UTF-8``); nothing else chooses the language."""
    for name in (*i18n.LOCALE_VARIABLES, i18n.ENV, "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    return lambda locale: monkeypatch.setenv("LANG", locale)


@pytest.fixture(scope="module")
def submitted(tmp_path_factory) -> Path:
    """ada on time by her own +0800 clock, bob 11.5 hours late, cy with the mask inverted."""
    root = tmp_path_factory.mktemp("trial37") / "submitted"
    for student, sources, stamp in [
        ("ada", [CORRECT, "answer_04_1 = 21"], "2026-12-01 23:30:00.000000 +0800"),
        ("bob", [CORRECT, "answer_04_1 = 21"], "2026-12-02 03:30:00.000000 UTC"),
        ("cy", [POLARITY, "answer_04_1 = 21"], "2026-12-01 10:00:00.000000 UTC"),
    ]:
        (submit(root, student, *sources).parent / "timestamp.txt").write_text(stamp)
    return root


def rows(out: Path) -> dict[str, dict[str, str]]:
    with out.open(newline="") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def page_text(page: str) -> str:
    """What a reader of the page reads, a paragraph or cell a line (the table's heads left out)."""
    body = re.sub(r"<th>.*?</th>", "", page.split("<body>", 1)[1], flags=re.S)
    body = re.sub(r"<(p|td|li|h1|h2|br)\b[^>]*>", "\n", body)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def squeezed(text: str) -> str:
    return "".join(text.split())


def test_times_are_shown_in_the_zone_the_due_date_was_given_in(
    submitted, tmp_path, capsys, language
):
    language("zh_CN.UTF-8")
    out = tmp_path / "grades" / "grades.csv"
    status, said, err = grade(capsys, submitted, out, "--due", DUE, "--late-penalty", "10%")
    assert status == 0, err
    # the instructor: the due date as given, UTC beside it
    assert "  注意：截止时间：04_softmax_masks 2026-12-01 23:59 Asia/Shanghai（15:59 UTC）" in said
    assert "15:59 UTC" not in said.replace("（15:59 UTC）", ""), said
    # the student: the times as the class was told them
    late = "提交于 2026-12-02 11:30 Asia/Shanghai，比截止时间（2026-12-01 23:59 Asia/Shanghai）"
    late += "晚 11.5 小时"
    assert late in text_feedback(out, "bob") and late in page_text(html_feedback(out, "bob"))
    assert "UTC" not in text_feedback(out, "bob"), text_feedback(out, "bob")
    report = page_text(out.with_name("grades_report.html").read_text())
    assert "2026-12-02 11:30 Asia/Shanghai（03:30 UTC）" in report and "11.5 小时" in report
    # the CSV: labelled UTC, whatever zone the timestamp was written in
    table = rows(out)
    assert table["ada"]["submitted"] == "2026-12-01 15:30:00 UTC", table["ada"]
    assert table["ada"]["status"] == "graded" and table["bob"]["status"] == "late"
    assert table["bob"]["submitted"] == "2026-12-02 03:30:00 UTC"
    penalty, total = float(table["bob"]["penalty"]), float(table["bob"]["total"])
    assert penalty == pytest.approx((total + penalty) / 10)  # 10%: a tenth
    # kept with the due date, as data
    kept = json.loads(out.with_name("grades_results.json").read_text())["rows"]
    assert {r["student"]: r["due_zone"] for r in kept} == dict.fromkeys(table, "Asia/Shanghai")
    assert not [n for r in kept for n in r["notes"] if CJK.search(n)]

    # a regrade that keeps the recorded due date shows it in the same zone, in its own language
    language("C.UTF-8")
    status, said, err = grade(capsys, submitted, out, "--student", "bob")
    assert status == 0, err
    bob = text_feedback(out, "bob")
    assert (
        "submitted 2026-12-02 11:30 Asia/Shanghai, 11.5 hours after the due date "
        "(2026-12-01 23:59 Asia/Shanghai); late penalty: -" in bob
    ), bob
    kept = json.loads(out.with_name("grades_results.json").read_text())["rows"]
    assert [r["due_zone"] for r in kept if r["student"] == "bob"] == ["Asia/Shanghai"]

    # an earlier grader's files: no zone kept, the CSV's times unlabelled: they still load
    results = out.with_name("grades_results.json")
    old = json.loads(results.read_text())
    for row in old["rows"]:
        del row["due_zone"]
    results.write_text(json.dumps(old))
    out.write_text(out.read_text().replace(":00 UTC,", ":00,"))
    assert read_table(out)[1]["submitted"] == "2026-12-02 03:30:00 UTC"  # read as UTC
    status, said, err = grade(capsys, submitted, out, "--student", "ada")
    assert status == 0, err
    assert rows(out)["bob"]["submitted"] == "2026-12-02 03:30:00 UTC"  # labelled when rewritten
    report = page_text(out.with_name("grades_report.html").read_text())
    assert "2026-12-02 03:30 UTC" in report and "Asia/Shanghai" not in report  # as before: UTC


@pytest.mark.parametrize(
    "locale, score, reread",
    [("zh_CN.UTF-8", ZH_SCORE, ZH_REREAD), ("C.UTF-8", EN_SCORE, EN_REREAD)],
)
def test_text_and_html_feedback_say_the_same_in_the_same_words(
    submitted, tmp_path, capsys, language, locale, score, reread
):
    language(locale)
    out = tmp_path / "grades.csv"
    status, said, err = grade(capsys, submitted, out, "--due", DUE, "--late-penalty", "0.1")
    assert status == 0, err
    table = rows(out)
    for student in ("ada", "bob", "cy"):
        text, page = text_feedback(out, student), page_text(html_feedback(out, student))
        # every sentence of the page is in the text, word for word
        for piece in filter(None, (line.strip() for line in page.splitlines())):
            assert squeezed(piece) in squeezed(text), (student, piece, text)
        # the score is the table's total, after the penalty, in the same sentence
        sentences = [line for line in text.splitlines() if line.startswith(score.split("{")[0])]
        assert len(sentences) == 1 and sentences[0] in page, (sentences, page)
        assert table[student]["total"] in sentences[0]
        # a question is named as the page and the class report name it
        question = "问题 04.1" if locale.startswith("zh") else "Question 04.1"
        assert re.search(rf"^  \S+\s+{question}\s+1/1$", text, re.M), text
        assert not re.search(r"^  \S+\s+answer_04_1\b", text, re.M), text
    bob = text_feedback(out, "bob")
    penalty = table["bob"]["penalty"]
    total = table["bob"]["total"]
    passed = str(sum(table["bob"][item] == "1" for item in ITEMS))
    assert score.format(total=total, passed=passed, penalty=penalty) in bob, bob
    # the named mistake and the section to re-read, in both
    cy = text_feedback(out, "cy")
    assert "[mask-polarity-inverted]" in cy and reread in cy, cy
    assert reread in page_text(html_feedback(out, "cy"))
    if locale.startswith("zh"):  # the title and its colon, as every other line has it
        assert cy.splitlines()[0] == "反馈：04_softmax_masks"
        assert not re.search(r"[\u4e00-\u9fff]: ", "\n".join(cy.splitlines()[:3])), cy


def test_a_late_penalty_as_a_percentage(submitted, tmp_path, capsys, language):
    language("zh_CN.UTF-8")
    out = tmp_path / "grades.csv"
    status, said, err = grade(capsys, submitted, out, "--due", DUE, "--late-penalty", "10%")
    assert status == 0, err
    bob = rows(out)["bob"]
    penalty, total = float(bob["penalty"]), float(bob["total"])
    assert penalty > 0 and total + penalty == pytest.approx(penalty * 10)  # a tenth
    for typed in ("10", "150%", "ten"):
        status, said, err = grade(capsys, submitted, out, "--late-penalty", typed)
        assert status == 2 and err.startswith("错误：--late-penalty 是分数的比例"), err
        assert "也可以写成百分数：扣十分之一就写 0.1 或 10%" in err and "invalid" not in err, err
    language("C.UTF-8")
    status, said, err = grade(capsys, submitted, out, "--late-penalty", "10")
    assert status == 2 and "or a percentage: e.g. 0.1 or 10% for a tenth; got 10" in err, err


def test_a_due_dates_hints_are_the_readers_own(submitted, tmp_path, capsys, language):
    language("zh_CN.UTF-8")
    out = tmp_path / "grades.csv"

    def refused(due: str) -> str:
        status, said, err = grade(capsys, submitted, out, "--due", due)
        assert status == 2, (due, said, err)
        return err

    for due in ("2026-12-01 23:59 CST", "Dec 1 2026 23:59 CST"):  # the second was 23:59 UTC
        err = refused(due)
        assert "CST 是时区缩写" in err and "中国标准时间，也是美国中部时间" in err, err
        assert "例如 Asia/Shanghai，或一个偏移量，例如 +0800" in err, err
    err = refused("2026-12-01 23:59 UTC+8")  # nbgrader reads it as 8 hours behind UTC
    assert "读成 -0800" in err and "例如 '2026-12-01 23:59 +0800'" in err, err
    err = refused("2026-12-01 23:59 Mars/Olympus")
    assert "例如 Asia/Shanghai，或一个偏移量，例如 +0800" in err and "Europe/Paris" not in err
    assert "'2026-12-01 23:59 Asia/Shanghai' 或 '2026-12-01 23:59 +0800'" in err, err
    err = refused("04_softmax_mask=2026-12-01")
    assert "你是想写 04_softmax_masks 吗" in err and "04_softmax_masks，05_attention" in err, err
    assert ", " not in err, err
    language("C.UTF-8")
    err = refused("2026-12-01 23:59 Mars/Olympus")
    assert "such as Europe/Paris, or an offset, such as +0100" in err, err
    assert "'2026-12-01 23:59:00 UTC' or 'Dec 1 2026 23:59'" in err
    assert not out.exists()

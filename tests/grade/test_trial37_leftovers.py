"""Trial 37's leftovers (a Chinese-reading instructor): Gradescope's ``results.json``, which the
student reads, speaks the course's language (its ids stay Gradescope's); the table says which
notebooks had cells the grader could not read; and the feedback folders ``nbgrader
release_feedback`` cannot hand out are named in full once, then counted in one line. And a later
instructor trial's: the due dates a regrade kept, a misspelt submissions folder, and code that
tampers named in the summary."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from test_grade import CORRECT, MASKS, submit
from test_grade_zh import CJK, grade
from test_trial37_feedback import POLARITY, ZH_REREAD

from autograder import i18n

DUE = f"{MASKS}=2026-12-01 23:59 Asia/Shanghai"  # 15:59 UTC


@pytest.fixture
def language(monkeypatch):
    """Set the locale (``zh_CN.UTF-8`` or ``C.UTF-8``); nothing else chooses the language."""
    for name in (*i18n.LOCALE_VARIABLES, i18n.ENV, "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    return lambda locale: monkeypatch.setenv("LANG", locale)


def class_of(root: Path) -> Path:
    """ada on time, bob late, cy with the mask inverted, dan with a cell that cannot be read;
    none collected by nbgrader (no submission_secret.txt)."""
    for student, sources, stamp in [
        ("ada", [CORRECT, "answer_04_1 = 21"], "2026-12-01 10:00:00.000000 UTC"),
        ("bob", [CORRECT, "answer_04_1 = 21"], "2026-12-02 03:30:00.000000 UTC"),
        ("cy", [POLARITY, "answer_04_1 = 21"], "2026-12-01 10:00:00.000000 UTC"),
        ("dan", [CORRECT, "def causal_mask(:\n    pass\n"], "2026-12-01 10:00:00.000000 UTC"),
    ]:
        (submit(root, student, *sources).parent / "timestamp.txt").write_text(stamp)
    return root


def results_json(out: Path, student: str) -> dict:
    path = out.with_name("grades_gradescope") / student / MASKS / "results.json"
    return json.loads(path.read_text())


def test_gradescope_results_speak_the_courses_language(tmp_path, capsys, language):
    language("zh_CN.UTF-8")
    root, out = class_of(tmp_path / "submitted"), tmp_path / "grades" / "grades.csv"
    status, said, err = grade(capsys, root, out, "--due", DUE, "--late-penalty", "0.1")
    assert status == 0, err
    bob = results_json(out, "bob")
    head = bob["output"].splitlines()
    assert head[0] == f"你的笔记本：{MASKS}.ipynb。状态：迟交。", bob["output"]
    assert head[1].startswith("提交于 2026-12-02 11:30 Asia/Shanghai") and "late" not in head[0]
    names = [t["name"] for t in bob["tests"]]
    assert "问题 04.1（answer_04_1）" in names and not [n for n in names if "Question" in n]
    cy = results_json(out, "cy")
    [masked] = [t for t in cy["tests"] if t["name"] == "masked_scores"]
    assert masked["status"] == "failed"  # Gradescope's ids, kept
    assert "[mask-polarity-inverted]" in masked["output"] and ZH_REREAD in masked["output"]
    assert CJK.search(masked["output"].split("\n")[0]), masked["output"]
    assert {t["status"] for t in cy["tests"]} == {"passed", "failed"}
    # in English, the same results in English
    language("C.UTF-8")
    status, said, err = grade(capsys, root, out, "--student", "cy")
    assert status == 0, err
    cy = results_json(out, "cy")
    assert cy["output"].splitlines()[0] == f"Your notebook: {MASKS}.ipynb. Status: graded."
    assert "Question 04.1 (answer_04_1)" in [t["name"] for t in cy["tests"]]
    assert not CJK.search(json.dumps(cy, ensure_ascii=False))


def test_the_table_says_which_notebooks_had_cells_not_read(tmp_path, capsys, language):
    language("C.UTF-8")
    root, out = class_of(tmp_path / "submitted"), tmp_path / "grades" / "grades.csv"
    status, said, err = grade(capsys, root, out)
    assert status == 0, err
    with out.open(newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert {s: r["unread_cells"] for s, r in rows.items()} == {
        "ada": "",
        "bob": "",
        "cy": "",
        "dan": "1",
    }
    assert rows["dan"]["status"] == "graded"  # a status of its own would hide its lateness
    # a regrade of another student keeps dan's
    status, said, err = grade(capsys, root, out, "--student", "ada")
    with out.open(newline="") as f:
        assert {r["student"]: r["unread_cells"] for r in csv.DictReader(f)}["dan"] == "1"


def secret_notes(said: str) -> list[str]:
    return [line for line in said.splitlines() if "submission_secret.txt" in line]


def test_folders_release_feedback_cannot_hand_out_are_named_once(tmp_path, capsys, language):
    language("C.UTF-8")
    root, out = class_of(tmp_path / "submitted"), tmp_path / "grades" / "grades.csv"
    status, said, err = grade(capsys, root, out)
    assert status == 0, err
    [first] = secret_notes(said)
    assert "4 feedback folders without submission_secret.txt" in first, first
    assert f"ada/{MASKS}, bob/{MASKS}, cy/{MASKS}, dan/{MASKS}" in first
    # the next run: one line, their count
    status, said, err = grade(capsys, root, out)
    assert secret_notes(said) == [  # the file they lack, not both (an instructor trial)
        "  note: 4 feedback folders named by earlier runs still lack submission_secret.txt: "
        "nbgrader release_feedback stops at them."
    ], said
    # a folder new since: named in full; one that has its secret now: not at all
    class_of_eve = submit(root, "eve", CORRECT).parent
    (class_of_eve / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")
    (root / "ada" / MASKS / "submission_secret.txt").write_text("s3cret")
    status, said, err = grade(capsys, root, out)
    new, old = secret_notes(said)
    assert "1 feedback folder without submission_secret.txt" in new and f"eve/{MASKS}." in new
    assert "ada/" not in new and "3 feedback folders named by earlier runs" in old, said
    # moved away, as the note advises, then graded again: new, so named in full
    for student in ("bob", "cy", "dan", "eve"):
        shutil.rmtree(out.with_name("grades_feedback") / student / MASKS)
    status, said, err = grade(capsys, root, out)
    [again] = secret_notes(said)
    assert "4 feedback folders without submission_secret.txt" in again, said


def test_the_reports_plots_speak_chinese_where_a_font_can_draw_it(tmp_path, language, monkeypatch):
    """Their words were English whatever the font; now English only where no CJK font is
    installed (Chinese would be boxes), else Chinese, the question names too."""
    from autograder.grade.grading import grade_class
    from autograder.grade.outputs import plots

    language("zh_CN.UTF-8")
    root = class_of(tmp_path / "submitted")
    seen: list[str] = []

    def png(fig) -> str:
        for ax in fig.axes:
            seen.extend([ax.get_xlabel(), ax.get_ylabel()])
            seen.extend(t.get_text() for t in ax.get_yticklabels())
        return "data:image/png;base64,"

    monkeypatch.setattr(plots, "_png", png)
    for font, words in [(None, "submissions passing (%)"), ("DejaVu Sans", "通过的提交")]:
        monkeypatch.setattr(plots, "cjk_font", lambda font=font: font)
        seen.clear()
        grade_class(root, tmp_path / font_dir(font) / "grades.csv", workers=2, config=None)
        shown = " | ".join(seen)
        assert words in shown, shown
        if font is None:
            assert "Question 04.1" in shown and not CJK.search(shown), shown
        else:
            assert "问题 04.1" in shown and "Question" not in shown, shown
            assert "total points" not in shown and "submissions" not in shown, shown


def font_dir(font: str | None) -> str:
    return "no-font" if font is None else "font"


def test_a_regrade_that_keeps_the_recorded_due_date_says_it(tmp_path, capsys, language):
    """The summary says the due dates a class was held to: given (--due), and, an instructor
    trial found, recorded at an earlier grading and kept by a regrade given none."""
    language("C.UTF-8")
    root, out = class_of(tmp_path / "submitted"), tmp_path / "grades" / "grades.csv"
    status, said, err = grade(capsys, root, out, "--due", DUE, "--late-penalty", "0.1")
    assert status == 0, err
    given = "due: 04_softmax_masks 2026-12-01 23:59 Asia/Shanghai (15:59 UTC)"
    assert given in said and "as recorded" not in said, said
    for again in ([], ["--student", "bob"]):
        status, said, err = grade(capsys, root, out, *again)
        assert status == 0, err
        kept = "due, as recorded at an earlier grading: 04_softmax_masks 2026-12-01 23:59 "
        assert kept + "Asia/Shanghai (15:59 UTC)" in said and given not in said, said


def test_a_submissions_folder_misspelt_is_told_the_one_beside_it(tmp_path):
    """`grade submited` (an instructor trial) said only "no such folder"."""
    from autograder.grade.grading import find_submissions
    from autograder.grade.results import GradeError

    (tmp_path / "submitted").mkdir()
    with pytest.raises(GradeError) as refused:
        find_submissions(tmp_path / "submited")
    assert f"did you mean {tmp_path / 'submitted'}?" in str(refused.value), refused.value
    with pytest.raises(GradeError) as refused:
        find_submissions(tmp_path / "elsewhere" / "submitted")  # nothing beside it to suggest
    assert "did you mean" not in str(refused.value) and "no such folder" in str(refused.value)


def test_code_that_tampers_is_named_in_the_summary_not_taught_as_a_mistake():
    """An instructor trial: a hostile submission's [tampering] showed only in the class report,
    at the top of "What to re-teach", "not cited in a lesson". The summary names it; the
    re-teach table counts only the lessons' mistakes."""
    from autograder.core.result import Result
    from autograder.grade.messages import tampered
    from autograder.grade.outputs.class_report import mistakes
    from autograder.grade.results import GRADED, Graded

    def graded(student, *mistaken):
        rows = [Result(name, False, 0.0, 1.0, "no", mistake) for name, mistake in mistaken]
        return Graded(student, MASKS, GRADED, 8.0, results=rows)

    rows = [
        graded("mallory", ("softmax", "tampering"), ("causal_mask", "tampering")),
        graded("dave", ("softmax", "softmax-wrong-dim")),
    ]
    with i18n.use("en"):
        [said] = tampered(rows)
    assert said.startswith("1 submission tried to change the grader"), said
    assert f"mallory/{MASKS} (softmax, causal_mask)" in said and "dave" not in said, said
    ranked, unnamed, _, _ = mistakes(rows)
    assert [m.mistake for m in ranked] == ["softmax-wrong-dim"] and unnamed == 0
    assert tampered(rows[1:]) == []


def test_a_general_mistake_is_not_said_to_be_uncited_in_the_lessons():
    """An instructor trial: [timeout] (a sleeping submission) stood in "What to re-teach" as
    "not cited in a lesson", as if a lesson had forgotten it. A mistake any lesson's code can
    make says so; a lesson's own mistake its notebook does not cite still says that."""
    from autograder.core.result import Result
    from autograder.grade.outputs.class_report import _mistakes_section
    from autograder.grade.results import GRADED, Graded

    rows = [
        Graded(
            "dave",
            MASKS,
            GRADED,
            8.0,
            results=[Result("softmax", False, 0.0, 2.0, "no", "timeout")],
        )
    ]
    with i18n.use("en"):
        shown = _mistakes_section(rows)
    assert "a general mistake: no lesson section" in shown and "not cited" not in shown

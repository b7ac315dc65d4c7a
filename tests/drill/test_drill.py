"""The interview trainer, ``python -m autograder drill``: every verb, on a temporary history."""

from __future__ import annotations

import inspect
import json
import os
import statistics
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from drill_helpers import CORRECT_SDPA, solve
from fsrs import Rating
from lesson_files import wrong_file

from autograder import contract
from autograder.drill import catalogue, files, history, schedule, stats
from autograder.drill.cli import main
from autograder.drill.extra.base import resolve

ROOT = Path(__file__).resolve().parents[2]
COURSE_DRILLS = [d for d in catalogue.DRILLS.values() if not hasattr(d, "stubs")]


def _history_file(home: Path) -> dict:
    return json.loads((home / "history.json").read_text())


def _flat(text: str) -> str:
    """A drill file's comments as one line (the file wraps them at 92 columns)."""
    comments = " ".join(ln.lstrip("#") for ln in text.splitlines() if ln.startswith("#"))
    return " ".join(comments.split())


def test_the_history_lives_in_the_users_data_dir_not_the_repo(monkeypatch):
    import platformdirs

    monkeypatch.delenv(history.ENV, raising=False)
    where = history.home()
    assert str(where).startswith(platformdirs.user_data_dir("attention-from-scratch", False))
    assert ROOT not in where.parents


def test_every_contract_exercise_has_a_statement_and_one_drill():
    assert all(e.spec for e in contract.CONTRACT)
    assert set(contract.NAMES) <= {n for d in COURSE_DRILLS for n in d.exercises}
    for name in contract.NAMES:  # its own, or the whiteboard drill that grades it alone
        assert catalogue.find(name).exercises == (name,) or name not in catalogue.ALIASES
    graded_alone = [d.exercises[0] for d in COURSE_DRILLS if len(d.exercises) == 1]
    assert len(graded_alone) == len(set(graded_alone))  # no two drills grade the same thing
    for drill in catalogue.COMPOSITES:
        assert drill.exercises and set(drill.exercises) <= set(contract.NAMES), drill.name
        assert drill.hints and drill.explanation and drill.statement, drill.name


def test_list_shows_every_drill_with_its_history_and_why_pairs_were_merged(home, capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in catalogue.DRILLS:
        assert f"\n  {name} " in out
    assert "(grades scaled_dot_product_attention)" in out and "sdpa-mask for" in out
    assert "Find the bug" in out and "Beyond the course" in out
    for title in ("SDPA with an additive or bool mask", "MHA from scratch", "RoPE"):
        assert title in out


@pytest.mark.parametrize("name", sorted(catalogue.DRILLS))
def test_every_blank_file_is_valid_python_at_both_levels(name):
    drill = catalogue.DRILLS[name]
    for bare in (False, True):
        text = files.blank(drill, "f.py", bare=bare)
        compile(text, "f.py", "exec")
        assert files.drill_of(text) == name
        for ex in drill.exercises:
            if ex in contract.BY_NAME and not hasattr(drill, "stubs"):
                assert f"{ex}{contract.BY_NAME[ex].signature}" in _flat(text)
                assert bare or contract.BY_NAME[ex].spec in _flat(text)
            else:
                assert f"def {ex}" in text or f"class {ex}" in text


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("name", sorted(catalogue.DRILLS))
def test_a_bare_file_names_no_pitfall_a_guided_one_does(name, lang):
    """In either language (a Chinese file is cut by the same words, levels.PITFALLS_ZH)."""
    from autograder.drill import levels
    from autograder.i18n import use

    drill = catalogue.DRILLS[name]
    if getattr(drill, "bug", False):
        pytest.skip("a find-the-bug file states the behaviour the fixed code must have")
    with use(lang):
        comments = _flat(files.blank(drill, "f.py", bare=True))
        guided = _flat(files.blank(drill, "f.py"))
    joined = comments.replace(" ", "")  # a Chinese file is wrapped between characters too
    found = [p for p in levels.PITFALLS + levels.PITFALLS_ZH if p in comments or p in joined]
    assert not levels.gives_away(comments) and not found, found
    if lang != "en":
        if name == "sdpa-mask":  # the guided file names them, in Chinese too
            for pitfall in ("-1e9", "mask.to(scores.dtype)"):
                assert pitfall in guided.replace(" ", "") and pitfall not in joined
            assert "全零" in joined  # what a fully masked row gives is graded: interface
        return
    if name == "sdpa-mask":
        for pitfall in ("-1e9", "mask.to(scores.dtype)"):
            assert pitfall in guided and pitfall not in comments
        # the interface stays: both mask forms, their meaning, the return value, what a fully
        # masked row gives and the output's dtype (both graded)
        for interface in (
            "bool (True = may attend)",
            "float (added to the scores",
            "(output",
            "all-zero weights and an all-zero output",
            "also when a float32 mask comes with half-precision inputs",
        ):
            assert interface in comments


def test_start_writes_the_signatures_and_the_conventions_and_starts_the_timer(home, capsys):
    assert main(["start", "mha"]) == 0
    out = capsys.readouterr().out
    path = Path("drill_mha.py")
    assert f"drill check {path}" in out
    text = path.read_text()
    flat = _flat(text)
    for convention in (
        "(output, weights)",
        "True = this query MAY attend",
        "all-zero weights and an all-zero output",
        "w_q, w_k, w_v, w_o",
        "def forward(self, query, key=None, value=None, mask=None)",
        "def __init__(self, d_model, num_heads, bias=False)",
    ):
        assert convention in flat or convention in text, convention
    started = _history_file(home)["started"]
    assert [s["drill"] for s in started.values()] == ["mha"]
    assert main(["start", "mha"]) == 2  # never overwrites a file silently
    assert "--force" in capsys.readouterr().err


def test_the_sdpa_drill_states_both_mask_forms(home):
    main(["start", "sdpa-mask"])
    text = _flat(Path("drill_sdpa-mask.py").read_text())
    assert "bool (True = may attend)" in text and "float (added to the scores" in text


def test_an_unknown_drill_suggests_the_closest_names_not_all_of_them(home, capsys):
    assert main(["hint", "rms-norm"]) == 2
    err = capsys.readouterr().err
    assert "did you mean rmsnorm?" in err and "sdpa-mask" not in err
    assert main(["start", "zzzz"]) == 2
    assert "drill list" in capsys.readouterr().err


def test_every_drill_in_the_list_has_a_title(home, capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in catalogue.DRILLS:
        (row,) = [line for line in out.splitlines() if line.startswith(f"  {name} ")]
        assert row.split(" min ")[1].split(maxsplit=2)[2:], row  # tries, passed, then a title
    assert "numerically stable softmax" in out and "queries from x" in out


def test_a_wrong_then_a_correct_attempt_leave_a_history_whose_stats_are_right(home, capsys):
    main(["start", "sdpa-mask"])
    path = Path("drill_sdpa-mask.py")
    wrong = wrong_file("mask-after-softmax")
    solve(path, wrong.read_text())
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  scaled_dot_product_attention" in out and "[mask-after-softmax]" in out
    solve(path, CORRECT_SDPA)
    assert main(["check", str(path)]) == 0
    assert "drill reveal sdpa-mask" in capsys.readouterr().out

    h = history.load()
    assert [a.passed for a in h.attempts] == [False, True]
    assert h.attempts[0].mistakes == [wrong.stem]
    assert h.attempts[0].failed == ["scaled_dot_product_attention"]
    assert all(a.seconds is not None and a.seconds >= 0 for a in h.attempts)
    assert h.attempts[0].seconds <= h.attempts[1].seconds  # time since `start`
    assert h.started == {}  # the timer stops at a pass
    (row,) = stats.per_drill(h)
    # fail then pass is one review, passed: the checks are the secondary figure
    assert (row.drill, row.reviews, row.passes, row.pass_rate) == ("sdpa-mask", 1, 1, 1.0)
    assert row.checks == 2
    assert row.median_seconds == statistics.median([h.attempts[1].seconds])

    assert main(["stats", "--png", "s.png"]) == 0
    out = capsys.readouterr().out
    assert "1 review, 1 passed (100%), 1 drill tried" in out and "2 checks" in out
    assert "after a reveal" not in out  # none was: not said
    assert Path("s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_check_needs_a_file_that_names_its_drill(home, tmp_path, capsys):
    loose = tmp_path / "mine.py"
    loose.write_text(CORRECT_SDPA)
    assert main(["check", str(loose)]) == 2
    assert "# drill: NAME" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.py")]) == 2
    assert not (home / "history.json").exists()


def _attempt(drill: str, at: datetime, passed: bool, seconds: float = 60.0) -> history.Attempt:
    return history.Attempt(drill, at.isoformat(), passed, seconds)


def test_next_prefers_the_failed_drill(home, capsys):
    then = datetime.now(timezone.utc) - timedelta(days=2)
    h = history.load()
    h.attempts += [_attempt("softmax", then, True), _attempt("causal_mask", then, False)]
    h.save()
    plan = schedule.plan(history.load(), then + timedelta(hours=1))
    assert plan[0].drill.name == "causal_mask"
    assert main(["next"]) == 0
    assert "Next: causal_mask" in capsys.readouterr().out


def test_next_starts_with_an_easy_untried_drill_and_slow_passes_come_back_sooner(home):
    plan = schedule.plan(history.load(), datetime.now(timezone.utc))
    assert plan[0].due is None and plan[0].drill.difficulty == 1
    drill = catalogue.DRILLS["mha"]
    then = datetime(2026, 1, 1, tzinfo=timezone.utc)
    quick = [history.Attempt("mha", then.isoformat(), True, 60.0)]
    slow = [history.Attempt("mha", then.isoformat(), True, 3 * drill.target_seconds)]
    failed = [history.Attempt("mha", then.isoformat(), False, 60.0)]
    assert schedule.rating(quick[0], drill) == Rating.Easy
    assert schedule.rating(slow[0], drill) == Rating.Hard
    assert schedule.rating(failed[0], drill) == Rating.Again
    due = {k: schedule.card(drill, a).due for k, a in (("q", quick), ("s", slow), ("f", failed))}
    assert due["f"] < due["s"] < due["q"]


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"version": 1, "attempts": [{}]}'])
def test_a_corrupt_history_is_reported_and_set_aside_never_lost(home, capsys, content):
    home.mkdir()
    (home / "history.json").write_text(content)
    assert main(["stats"]) == 0
    err = capsys.readouterr().err
    assert "could not be read" in err
    (aside,) = home.glob("history.json.corrupt-*")
    assert aside.read_text() == content
    assert str(aside) in err
    assert main(["start", "softmax"]) == 0  # the trainer carries on with a new history
    assert _history_file(home)["version"] == history.VERSION
    assert aside.read_text() == content


def test_hints_come_in_levels_ending_with_the_mistakes_the_checks_name(home, capsys):
    assert main(["hint", "sdpa-mask"]) == 0
    out = capsys.readouterr().out
    assert "Hint 1/" in out and "Hint 2/" not in out and "hint sdpa-mask 2" in out
    assert main(["hint", "sdpa-mask", "99"]) == 0
    out = capsys.readouterr().out
    assert "[mask-after-softmax]" in out and "No more hints" in out
    assert "hints: all shown above." in out  # 99 asked for: said how many there are
    assert main(["hint", "causal_mask"]) == 0  # a plain exercise's hints: the contract first
    assert "Hint 1/" in capsys.readouterr().out


def test_reveal_shows_the_course_reference_and_counts_as_a_fail_before_a_pass(home, capsys):
    import course_lib.attention
    import course_lib.masks

    assert main(["reveal", "sdpa-mask"]) == 0
    out = capsys.readouterr().out
    assert "counts as a fail" in out
    assert inspect.getsource(course_lib.attention.scaled_dot_product_attention) in out
    assert inspect.getsource(course_lib.masks.masked_scores) in out  # what it calls, too
    assert catalogue.DRILLS["sdpa-mask"].explanation in out
    assert "sdpa-mask" in history.load().revealed


@pytest.mark.parametrize("name", sorted(catalogue.DRILLS))
def test_every_model_answer_is_the_course_reference_or_the_drills(name):
    import importlib

    drill = catalogue.DRILLS[name]
    answer = files.model_answer(drill)
    if getattr(drill, "answer", ()):  # beyond the course: the drill's own reference
        for name in drill.answer:
            assert inspect.getsource(resolve(name)) in answer
        return
    for ex in drill.exercises:
        module, _, attr = contract.BY_NAME[ex].reference.partition(":")
        assert inspect.getsource(getattr(importlib.import_module(module), attr)) in answer


def test_quiz_lists_and_grades_the_interview_questions(home, capsys):
    from autograder.questions import QUESTIONS

    ours = [q for q in QUESTIONS if q.startswith("10_")]
    assert len(ours) >= 9
    assert main(["quiz"]) == 0
    out = capsys.readouterr().out
    assert all(f"[{q}]" in out for q in ours)
    assert main(["quiz", "10_3", str(QUESTIONS["10_3"].answer)]) == 0
    assert "correct" in capsys.readouterr().out
    assert main(["quiz", "10_2", "a"]) == 1
    assert "unverified" in capsys.readouterr().out
    assert main(["quiz", "10_2"]) == 0  # no answer: the question, and how to answer it
    assert capsys.readouterr().out.startswith("[10_2] ")
    assert main(["quiz", "99_9"]) == 2


def test_python_m_autograder_drill_is_the_command_line(home):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "drill", "list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "sdpa-mask" in run.stdout


def test_what_a_drill_shows_is_chinese_when_asked_and_english_otherwise():
    """The spec, statement, conventions, hints and quiz prompts come from the grader's catalog
    (autograder/i18n_extract.py extracts them); English is the source text, unchanged."""
    from autograder.drill import quiz, verbs
    from autograder.i18n import use

    mha, softmax = catalogue.DRILLS["mha"], catalogue.DRILLS["softmax"]
    question = quiz.questions()["10_1"]
    with use("en"):
        assert catalogue.title(softmax) == softmax.title
        assert contract.BY_NAME["MultiHeadAttention"].spec in _flat(files.blank(mha, "f.py"))
        assert verbs.hints(mha)[0] == mha.hints[0]
        assert quiz.prompt(question) == question.prompt
    with use("zh-CN"):
        text = files.blank(mha, "f.py")
        assert "多头注意力" in text and "检查所依赖的约定" in text and "目标用时 20 分钟" in text
        assert contract.BY_NAME["MultiHeadAttention"].spec not in _flat(text)
        assert catalogue.title(softmax).startswith("沿 `dim` 的数值稳定 softmax")
        assert verbs.hints(mha)[0].startswith("形状：")
        assert quiz.prompt(question).startswith("为什么注意力要把分数除以 sqrt(d_k)")
        two = quiz.questions()["10_2"]  # its "15-20%" is looked up as "%%" (i18n_extract)
        assert "15-20%" in quiz.prompt(two) and "%%" not in quiz.prompt(two)
        assert quiz.prompt(two) != two.prompt

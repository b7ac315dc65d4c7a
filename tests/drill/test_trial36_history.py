"""What a candidate's trial (trial 36) found in the drill history and the trainer's flow: a syntax
error said as "X is not defined" and recorded as a failed check, re-checks of a passed file
counted as reviews, a revealed pass that ended its reveal (the next pass, 97 s after reading the
answer, was rated Easy), ``next`` and ``list`` blind to the drill in progress, the quiz refusing
"1/16" and telling a candidate at a command line to answer "as a string" ("you gave 'd' (str)")."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from drill_helpers import CORRECT_SDPA, T0, solve
from fsrs import Rating

from autograder.drill import history, schedule, stats
from autograder.drill.cli import main


@pytest.mark.parametrize("drill", ["sdpa-mask", "rmsnorm"])  # a course drill, a new one
def test_a_syntax_error_is_said_with_its_line_and_not_recorded(home, capsys, drill):
    assert main(["start", drill]) == 0
    path = Path(f"drill_{drill}.py")
    solve(path, "import math\n\n\ndef broken(x)\n    return x\n")
    line = path.read_text().splitlines().index("def broken(x)") + 1
    capsys.readouterr()
    assert main(["check", str(path)]) == 2  # nothing was graded, as a file that cannot be read
    out = capsys.readouterr().out
    assert f"has a syntax error on line {line}: expected ':'" in out, out
    assert "is not defined" not in out and "[not-defined]" not in out
    assert "not recorded" in out
    h = history.load()
    assert h.attempts == [] and len(h.started) == 1  # no failed check; the timer runs on


def test_a_recheck_of_a_passed_file_grades_but_adds_no_review(home, capsys):
    assert main(["start", "sdpa-mask"]) == 0
    path = Path("drill_sdpa-mask.py")
    solve(path, CORRECT_SDPA)
    assert main(["check", str(path)]) == 0
    assert main(["check", str(path)]) == 0  # to see the result again
    out = capsys.readouterr().out
    assert out.count("PASS") == 2 and "re-check" in out and "drill start sdpa-mask --force" in out
    solve(path, CORRECT_SDPA.replace("~mask", "mask"))
    assert main(["check", str(path)]) == 1  # tinkering after the pass: graded, not recorded
    h = history.load()
    assert [a.passed for a in h.attempts] == [True]
    (row,) = stats.per_drill(h)
    assert (row.reviews, row.checks) == (1, 1)
    assert len(schedule.reviews(h, "sdpa-mask")) == 1
    assert main(["start", "sdpa-mask", "--force"]) == 0  # a new go is recorded again
    solve(path, CORRECT_SDPA)
    assert main(["check", str(path)]) == 0
    assert [a.passed for a in history.load().attempts] == [True, True]


def test_a_revealed_pass_does_not_end_its_reveal(home):
    h = history.load()
    h.saw("reveal", "top-k", T0)
    at = T0 + timedelta(seconds=10)
    assert h.seen_before("top-k", at) == (0, True)
    h.attempts.append(history.Attempt("top-k", at.isoformat(), True, 10.0, revealed=True))
    later = T0 + timedelta(seconds=107)  # the trial: 97 s after the revealed pass
    assert h.seen_before("top-k", later) == (0, True)
    h.attempts.append(history.Attempt("top-k", later.isoformat(), True, 20.0, revealed=True))
    assert [r.rating for r in schedule.reviews(h, "top-k")] == [Rating.Again, Rating.Again]
    # a clean pass ends it; a day later it is gone anyway
    clean = T0 + timedelta(days=1, minutes=1)
    assert h.seen_before("top-k", clean) == (0, False)
    h.attempts.append(history.Attempt("top-k", clean.isoformat(), True, 20.0))
    h.saw("hint", "top-k", clean + timedelta(minutes=1), level=1)
    assert h.seen_before("top-k", clean + timedelta(minutes=2)) == (1, False)


def test_next_and_the_bare_command_show_the_drill_in_progress(home, capsys):
    assert main(["start", "tiled"]) == 0
    capsys.readouterr()
    assert main(["next"]) == 0
    out = capsys.readouterr().out
    assert "In progress: tiled, 0.0 min on its timer (target" in out
    assert "Next: tiled" in out and "drill check drill_tiled.py" in out
    assert main([]) == 0  # no verb: `next`, as `make drill`
    assert capsys.readouterr().out == out
    assert history.load().attempts == []  # seeing the timer records nothing


def test_list_shows_the_drill_in_progress_as_next_does(home, capsys, monkeypatch):
    assert main(["list"]) == 0
    assert "In progress" not in capsys.readouterr().out  # nothing started: the list as it was
    assert main(["start", "tiled"]) == 0
    capsys.readouterr()
    assert main(["next"]) == 0
    (said,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("In progress")]
    assert said.startswith("In progress: tiled, 0.0 min on its timer (target")
    assert main(["list"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == said
    monkeypatch.setenv("AUTOGRADER_LANG", "zh-CN")
    assert main(["list"]) == 0
    assert capsys.readouterr().out.startswith("进行中：tiled，已计时 0.0 分钟")
    assert history.load().attempts == []


def test_the_quiz_takes_a_fraction_and_says_what_to_type_in_plain_words(home, capsys, monkeypatch):
    assert main(["quiz", "x_7", "1/16"]) == 0  # the slope of head 3 of 8
    assert "✔" in capsys.readouterr().out
    assert main(["quiz", "x_7", "1/8"]) == 1  # head 2's slope: read, and wrong
    capsys.readouterr()
    assert main(["quiz", "10_1", "d"]) == 2
    err = capsys.readouterr().err
    assert "Question 10.1: type one of the letters a, b, c; you typed 'd'." in err, err
    assert main(["quiz", "x_7", "one sixteenth"]) == 2
    err = capsys.readouterr().err
    assert "type a number, such as 12, 0.5 or 3/4; you typed 'one sixteenth'." in err, err
    assert main(["quiz", "x_1", "1/16"]) == 2  # a byte count: a whole number
    err = capsys.readouterr().err
    assert "type a whole number, such as 12 or 123,456; you typed '1/16'." in err, err
    assert main(["quiz", "x_7", "1/0"]) == 2
    monkeypatch.setenv("AUTOGRADER_LANG", "zh-CN")
    assert main(["quiz", "10_1", "d"]) == 2
    err = capsys.readouterr().err
    assert "问题 10.1：请输入字母 a、b、c 之一；你输入的是 'd'。" in err, err
    for jargon in ("string", "(str)", "as a ", "字符串"):
        assert jargon not in err, jargon
    assert [a["answer"] for a in history.load().answers] == ["1/16", "1/8"]


def test_the_quiz_takes_a_power_as_the_questions_write_it(home, capsys):
    """Trial 45: "2^-4" (the slope of head 3 of 8, as the question writes powers) was refused."""
    assert main(["quiz", "x_7", "2^-4"]) == 0
    assert main(["quiz", "x_7", "2 ** -4"]) == 0
    assert main(["quiz", "x_7", "2^-3"]) == 1  # read, and wrong
    assert main(["quiz", "x_7", "10^999"]) == 2  # no float holds it: unreadable, not a crash
    capsys.readouterr()


def test_no_example_of_what_to_type_answers_a_question():
    """The examples in "type a whole number, such as ..." answer no question of the quiz or the
    lessons (a trial's wrong form was shown "such as 12 or 327,680": x_1's answer; "1/16" was
    x_7's), whatever the language."""
    from autograder.drill.quiz import EXPECTED, grade, questions
    from autograder.i18n import _, use
    from autograder.questions import QUESTIONS, grade_answer

    shapes = re.compile(r"\(\d+(?:, \d+)*\)")
    numbers = re.compile(r"\d[\d,]*\d(?:\.\d+)?|\d(?:\.\d+)?(?:/\d+)?")
    for language in ("en", "zh-CN"):
        with use(language):
            texts = [_(text) for text in EXPECTED.values()]
        found = [shapes.findall(t) + numbers.findall(shapes.sub("", t)) for t in texts]
        examples = {e for t in found for e in t}
        assert {"12", "123,456", "3/4", "(2, 3)"} <= examples, examples
        for qid in questions():
            for example in examples:
                assert not grade(qid, example).correct, (qid, example)
        for qid in QUESTIONS:  # the lessons' own: "such as 12 or 0.5", "such as (2, 3)"
            for example in ("12", "0.5", "(2, 3)", *examples):
                assert not grade_answer(qid, example).correct, (qid, example)


def test_a_quiz_question_named_without_an_answer_is_shown_with_how_to_answer_it(home, capsys):
    """`drill quiz x_1` said only "error: give an answer" (a candidate trial): it shows the
    question and the command that answers it, and records nothing."""
    from autograder.drill.quiz import prompt, questions

    assert main(["quiz", "x_1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"[x_1] {prompt(questions()['x_1'])}"), out
    assert "quiz x_1 ANSWER" in out, out
    assert history.load().answers == []

"""Trial 36: ``drill stats``, ``schedule``, the quiz list's "(new)", the session's states and the
rating names (inside Chinese sentences too) stayed English under ``LANG=zh_CN.UTF-8``."""

from __future__ import annotations

from datetime import timedelta

from drill_helpers import T0
from fsrs import Rating

from autograder.drill import history, schedule, stats
from autograder.drill.cli import main
from autograder.i18n import use


def _tried(h: history.History) -> None:
    h.attempts += [
        history.Attempt("softmax", T0.isoformat(), False, 30.0),
        history.Attempt("softmax", (T0 + timedelta(minutes=1)).isoformat(), True, 60.0),
        history.Attempt("mha", T0.isoformat(), True, 60.0),
    ]
    h.answers.append({"question": "10_1", "at": T0.isoformat(), "answer": "b", "correct": True})
    h.save()


def test_stats_schedule_ratings_and_the_quiz_list_speak_chinese(home, capsys, monkeypatch):
    _tried(history.load())
    with use("en"):
        english = stats.text(history.load())
        assert "2 reviews, 2 passed (100%)" in english and "last review" in english
        assert "Quiz: 1 answer to 1 question, 1 right (100%)" in english
    monkeypatch.setenv("AUTOGRADER_LANG", "zh-CN")
    chinese = stats.text(history.load())
    for word in ("review", "passed", "last review", "checks", "Good", "Easy", "Quiz", " min"):
        assert word not in chinese, word
    assert "良好" in chinese and "简单" in chinese
    assert main(["schedule"]) == 0
    out = capsys.readouterr().out
    for word in ("last review", "passed in", "Good", "Easy", "within", "never tried"):
        assert word not in out, word
    assert "softmax" in out and "良好" in out
    assert main(["quiz"]) == 0
    assert "(new)" not in capsys.readouterr().out
    h = history.load()
    rating, why = schedule.review_rating(h.of("softmax"), schedule.DRILLS["softmax"])
    assert rating == Rating.Good and not any(c.isascii() and c.isalpha() for c in why), why
    assert main(["next"]) == 0
    assert "never tried" not in capsys.readouterr().out


def test_a_sessions_states_and_the_hint_note_name_the_ratings_in_chinese(home, capsys, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_LANG", "zh-CN")
    assert main(["session", "--focus", "softmax,mha"]) == 0
    capsys.readouterr()
    assert main(["session"]) == 0
    out = capsys.readouterr().out
    assert "not tried" not in out and "softmax" in out
    assert main(["hint", "softmax"]) == 0
    out = capsys.readouterr().out
    assert "Good" not in out and "Hard" not in out and "良好" in out

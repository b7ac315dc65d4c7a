"""Sessions, the honest schedule and the trainer's output: one FSRS review per drill per
session, reveals and hints always counted, stats that keep revealed passes apart, the quiz
recorded and scheduled, commands that work from where the candidate is, quiet pipes, and the
grader's own time kept off the candidate's timer."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from drill_helpers import CORRECT_SDPA, T0, solve
from fsrs import Rating

from autograder.drill import catalogue, commands, history, quiz, schedule, session, stats
from autograder.drill.cli import main

ROOT = Path(__file__).resolve().parents[2]


def attempt(drill, minutes, passed, seconds=60.0, session_id=None, **kw):
    at = (T0 + timedelta(minutes=minutes)).isoformat()
    return history.Attempt(drill, at, passed, seconds, session=session_id, **kw)


def test_iterating_in_a_session_is_one_review_not_again_again_easy(home):
    h = history.load()
    s = session.begin(h, ["sdpa-mask", "mha"], "focus", T0)
    h.attempts += [
        attempt("sdpa-mask", 0.5, False, 30, s["id"]),
        attempt("sdpa-mask", 1.0, False, 60, s["id"]),
        attempt("sdpa-mask", 1.5, True, 90, s["id"]),
    ]
    (review,) = schedule.reviews(h, "sdpa-mask")
    assert review.rating == Rating.Good  # within half the target, but after 2 failed checks
    assert "2 failed checks" in review.why
    # the same three checks as separate reviews would have been Again, Again, Easy
    drill = catalogue.DRILLS["sdpa-mask"]
    assert [schedule.rating(a, drill) for a in h.attempts] == [
        Rating.Again,
        Rating.Again,
        Rating.Easy,
    ]
    card = schedule.card_of(h, "sdpa-mask")
    assert card.difficulty < 6  # not the 8.4 of "Again, Again, Easy"


@pytest.mark.parametrize(
    ("fails", "hints", "seconds", "rating"),
    [
        (0, 0, 60, Rating.Easy),
        (0, 0, 400, Rating.Good),
        (0, 0, 900, Rating.Hard),
        (1, 0, 60, Rating.Good),
        (3, 0, 60, Rating.Hard),
        (0, 1, 60, Rating.Good),
        (0, 2, 60, Rating.Hard),
    ],
)
def test_the_rating_weighs_time_failed_checks_and_hints(fails, hints, seconds, rating):
    drill = catalogue.DRILLS["sdpa-mask"]  # target 10 min
    tries = [attempt("sdpa-mask", i, False, 10.0 * i) for i in range(fails)]
    tries.append(attempt("sdpa-mask", fails, True, seconds, hints=hints))
    assert schedule.review_rating(tries, drill)[0] == rating


def test_a_revealed_pass_is_again_and_stats_keep_it_apart(home):
    h = history.load()
    h.attempts.append(attempt("mha", 0, True, 300))  # a clean pass
    h.saw("reveal", "mha", T0 + timedelta(days=3))
    at = T0 + timedelta(days=3, minutes=5)
    hints, revealed = h.seen_before("mha", at)
    assert revealed  # the reveal counts against the repeat, whatever came before
    h.attempts.append(history.Attempt("mha", at.isoformat(), True, 60.0, revealed=True))
    reviews = schedule.reviews(h, "mha")
    assert [r.rating for r in reviews] == [Rating.Easy, Rating.Again]
    (row,) = stats.per_drill(h)
    assert (row.reviews, row.passes, row.revealed_passes, row.checks) == (2, 1, 1, 2)
    assert row.pass_rate == 0.5 and row.median_seconds == 300  # the revealed 60 s left out
    assert "1 more passed after a reveal" in stats.text(h)


def test_a_reveal_after_a_pass_reads_the_answer_without_a_new_fail(home):
    h = history.load()
    h.attempts.append(attempt("mha", 0, True, 300))
    h.saw("reveal", "mha", T0 + timedelta(minutes=1))
    assert [r.rating for r in schedule.reviews(h, "mha")] == [Rating.Easy]
    h.saw("reveal", "rope", T0)  # revealed before any attempt: a fail of its own
    assert [r.rating for r in schedule.reviews(h, "rope")] == [Rating.Again]


def test_hints_count_until_the_next_pass(home):
    h = history.load()
    h.saw("hint", "mha", T0, level=2)
    assert h.seen_before("mha", T0 + timedelta(minutes=5)) == (2, False)
    h.attempts.append(attempt("mha", 6, True, 300))
    assert h.seen_before("mha", T0 + timedelta(minutes=30)) == (0, False)
    assert h.seen_before("mha", T0 + timedelta(days=2)) == (0, False)


def test_a_focused_session_drives_next_and_rates_once(home, capsys):
    assert main(["session", "--focus", "sdpa-mask,mha"]) == 0
    out = capsys.readouterr().out
    assert "Session started: sdpa-mask, mha" in out and "start sdpa-mask" in out
    assert main(["next"]) == 0
    assert "Next in your session: sdpa-mask" in capsys.readouterr().out
    assert main(["start", "sdpa-mask"]) == 0
    path = Path("drill_sdpa-mask.py")
    solve(path, CORRECT_SDPA.replace("~mask", "mask"))
    assert main(["check", str(path)]) == 1
    assert "Session: 0/2 passed; next: sdpa-mask" in capsys.readouterr().out
    solve(path, CORRECT_SDPA)
    assert main(["check", str(path)]) == 0
    assert "Session: 1/2 passed; next: mha" in capsys.readouterr().out
    assert main(["next"]) == 0
    said = capsys.readouterr().out
    assert "Next in your session: mha" in said and "; not tried in this session)." in said, said
    h = history.load()
    (review,) = schedule.reviews(h, "sdpa-mask")
    assert review.rating == Rating.Good and len(review.attempts) == 2
    assert main(["session"]) == 0
    out = capsys.readouterr().out
    assert "sdpa-mask" in out and "rated Good" in out and "not tried" in out
    assert main(["session", "--end"]) == 0
    assert main(["next"]) == 0
    assert "Next in your session" not in capsys.readouterr().out


def test_the_pass_that_completes_a_session_ends_it_and_says_so(home, capsys):
    assert main(["session", "--focus", "sdpa-mask"]) == 0
    assert main(["start", "sdpa-mask"]) == 0
    path = Path("drill_sdpa-mask.py")
    solve(path, CORRECT_SDPA)
    capsys.readouterr()
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Session: 1/1 passed: complete, and ended." in out and "session --end" not in out
    assert session.current(history.load(), datetime.now(timezone.utc)) is None
    assert main(["session", "--end"]) == 0
    out = capsys.readouterr().out
    assert "already complete" in out and "No session in progress" not in out


@pytest.mark.parametrize("answer", ["327,680", "327 680", "327_680", "327680"])
def test_integer_answers_take_thousands_separators(answer):
    from autograder.questions import Question, verdict_on

    q = Question("x_0", "How many?", "int", 327680, "hint")
    assert verdict_on(q, answer, "Q").correct


def test_an_unreadable_quiz_answer_is_not_recorded(home, capsys):
    (qid,) = [q for q, v in quiz.questions().items() if v.kind == "choice"][:1]
    assert main(["quiz", qid, "banana"]) == 2
    assert "Nothing was recorded" in capsys.readouterr().err
    assert history.load().answers == []


def test_a_due_session_takes_the_overdue_drills(home, capsys):
    h = history.load()
    h.attempts += [attempt("softmax", 0, False), attempt("causal_mask", 0, True)]
    h.save()
    names = session.due(history.load(), T0 + timedelta(days=1))
    assert names[0] == "softmax" and "causal_mask" not in names
    assert main(["session", "--due"]) == 0
    assert "softmax" in capsys.readouterr().out


def test_quiz_answers_are_recorded_and_a_wrong_one_comes_back_first(home, capsys):
    qs = quiz.questions()
    assert any(q.startswith("10_") for q in qs) and any(q.startswith("x_") for q in qs)
    assert main(["quiz", "x_3", "b"]) == 1
    assert main(["quiz", "x_4", "b"]) == 0
    h = history.load()
    assert [(a["question"], a["correct"]) for a in h.answers] == [("x_3", False), ("x_4", True)]
    later = datetime.now(timezone.utc) + timedelta(minutes=5)  # Again: 1 min, Good: 10 min
    order = quiz.order(h, later)
    assert order[0] == ("x_3", "due")
    assert dict(order)["x_4"].startswith("next due")
    capsys.readouterr()
    assert main(["stats"]) == 0
    assert "Quiz: 2 answers to 2 questions, 1 right" in capsys.readouterr().out


def test_new_multiple_choice_options_are_as_long_as_the_answer():
    from autograder.drill.extra.quiz import QUESTIONS

    for q in QUESTIONS:
        if q.kind != "choice":
            continue
        options = [o for o in q.prompt.split(" (")[1:] if o[:2] in ("a)", "b)", "c)")]
        lengths = [len(o) for o in options]
        assert len(lengths) == len(q.choices), q.id
        assert max(lengths) < 1.5 * min(lengths), (q.id, lengths)


def test_commands_work_from_where_the_candidate_is(monkeypatch, tmp_path):
    monkeypatch.delenv("MAKELEVEL", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")  # no `python` on the PATH
    monkeypatch.chdir(tmp_path)
    spelled = commands.command("check", "drill_mha.py")
    assert spelled == f"{Path(sys.executable).absolute()} -m autograder drill check drill_mha.py"
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # an activated venv
    assert commands.command("next") == "python -m autograder drill next"
    monkeypatch.setenv("MAKELEVEL", "1")
    monkeypatch.setenv("DRILL_FROM", str(tmp_path))
    assert commands.command("start", "mha") == 'make drill DRILL="start mha"'
    course = tmp_path / "course"  # `make -C course drill` from tmp_path: make runs in course
    course.mkdir()
    monkeypatch.chdir(course)
    assert commands.command("start", "mha") == 'make -C course drill DRILL="start mha"'
    assert commands.command() == "make -C course drill"


def test_the_blank_file_and_the_output_suggest_commands_that_exist(home, capsys, monkeypatch):
    monkeypatch.delenv("MAKELEVEL", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert main(["start", "mha"]) == 0
    out = capsys.readouterr().out
    suggested = f"{Path(sys.executable).absolute()} -m autograder drill check drill_mha.py"
    assert suggested in out and suggested in Path("drill_mha.py").read_text()
    for line in out.splitlines():
        if " -m autograder drill" in line:  # each suggested interpreter exists from here
            assert Path(line.split(" -m ")[0].split()[-1]).exists(), line


def test_a_closed_pipe_ends_quietly(home):
    env = {**os.environ, "PYTHONPATH": str(ROOT), history.ENV: str(home)}
    run = subprocess.run(
        f"{sys.executable} -m autograder drill reveal mha | head -1",
        shell=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.stdout.strip() and "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr


def test_the_graders_time_is_not_the_candidates(home, capsys):
    assert main(["start", "sdpa-mask"]) == 0
    path = Path("drill_sdpa-mask.py")
    solve(path, CORRECT_SDPA.replace("~mask", "mask"))
    assert main(["check", str(path)]) == 1
    h = history.load()
    (timer,) = h.started.values()
    grader_first = timer["grader"]
    assert grader_first > 0
    solve(path, CORRECT_SDPA)
    called = datetime.now(timezone.utc)
    assert main(["check", str(path)]) == 0
    first, second = history.load().attempts
    wall = (called - datetime.fromisoformat(first.at)).total_seconds()
    # the second check's time: the wall time since the first, less the first check's grading
    assert second.seconds - first.seconds <= wall - grader_first + 0.5
    assert second.seconds - first.seconds >= wall - grader_first - 0.5


def test_a_version_1_history_is_read_with_its_reveals_and_old_drill_names(home):
    import json

    home.mkdir()
    at = T0.isoformat()
    (home / "history.json").write_text(
        json.dumps(
            {
                "version": 1,
                "attempts": [
                    {
                        "drill": "scaled_dot_product_attention",
                        "at": at,
                        "passed": True,
                        "seconds": 60.0,
                        "mistakes": [],
                        "failed": [],
                        "revealed": False,
                    }
                ],
                "started": {},
                "revealed": {"MultiHeadAttention": at},
            }
        )
    )
    h = history.load()
    assert h.notice is None
    assert [a.drill for a in h.attempts] == ["sdpa-mask"]
    assert h.revealed == {"mha": at}
    h.save()
    assert json.loads((home / "history.json").read_text())["version"] == history.VERSION


def test_next_follows_the_drill_being_worked_on_outside_a_session(home, capsys):
    assert main(["start", "mha"]) == 0
    h = history.load()
    now = datetime.now(timezone.utc)
    h.attempts.append(history.Attempt("mha", now.isoformat(), False, 30.0))
    h.save()
    capsys.readouterr()
    assert main(["next"]) == 0
    out = capsys.readouterr().out
    assert "Next: mha" in out and "you are on it" in out
    assert "check drill_mha.py" in out  # its file exists: check it, not start it again


def test_a_passed_drill_is_not_due_again_the_same_day_and_schedule_shows_it(home, capsys):
    h = history.load()
    h.attempts += [attempt("mha", 0, False, 600), attempt("mha", 30, True, 1500, hints=2)]
    h.attempts += [attempt("softmax", 0, False, 60)]
    h.save()
    (review,) = schedule.reviews(history.load(), "mha")
    assert review.rating == Rating.Hard
    c = schedule.card_of(history.load(), "mha")
    assert c.due - review.at >= timedelta(days=1)
    assert schedule.card_of(history.load(), "softmax").due - T0 < timedelta(hours=1)  # failed
    h = history.load()  # the same, passed an hour ago: due tomorrow, not now
    recent = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat()
    h.attempts.append(history.Attempt("mha", recent, True, 1500.0, hints=2))
    h.save()
    assert main(["schedule"]) == 0
    out = capsys.readouterr().out
    mha = [line for line in out.splitlines() if line.startswith("  mha ")][0]
    tomorrow = datetime.fromisoformat(recent) + timedelta(days=1)
    assert f"{tomorrow:%Y-%m-%d}" in mha and "Hard" in mha and " now " not in mha
    assert "softmax" in out and "never tried" in out


def test_a_rating_capped_by_failed_checks_says_so():
    tries = [attempt("sdpa-mask", m, False, 10) for m in range(4)]
    tries.append(attempt("sdpa-mask", 5, True, 24))
    r, why = schedule.review_rating(tries, catalogue.DRILLS["sdpa-mask"])
    assert r == Rating.Hard and "within half the target" in why
    assert "so Hard, not Easy: at most Hard after 3 failed checks" in why


def test_a_float32_mask_on_half_scores_gets_the_drills_advice(home, capsys):
    assert main(["start", "sdpa-mask"]) == 0
    path = Path("drill_sdpa-mask.py")
    solve(path, CORRECT_SDPA.replace("mask.to(scores.dtype)", "mask"))
    capsys.readouterr()
    assert main(["check", str(path)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "[dtype-promoted]" in out and "mask.to(scores.dtype)" in out
    assert "cos/sin" not in out and "angles" not in out

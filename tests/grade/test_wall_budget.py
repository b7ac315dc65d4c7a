"""A submission that sleeps keeps the class waiting at most its wall-clock budget (WALL_BUDGET),
and only when it uses little CPU on a machine that is not busy: the rest of it is not judged,
and each result says why. A machine busy with others' work never stops it (the CPU limits
decide); one that the submission's own processes make busy excuses nothing."""

from __future__ import annotations

import pytest

from autograder.core.extract import from_sources
from autograder.core.judge import judge_code
from autograder.sandbox.host import replies, submission

SLEEPS_WHILE_LOADING = """import time
time.sleep(2)
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
answer_02_1 = "a"
"""


class Sandbox:
    """A sandbox whose processes have used ``cpu`` seconds in all (the judge's own count)."""

    def __init__(self, cpu: float = 0.0):
        self.cpu = cpu

    def cpu_seconds(self) -> float:
        return self.cpu


def bare(waited: float, cpu: float, sandbox: Sandbox | None = None) -> submission.Submission:
    """The budget's rule alone, without a sandbox: ``waited`` seconds, ``cpu`` reported."""
    sub = object.__new__(submission.Submission)
    sub.waited, sub.cpu, sub.used = waited, cpu, 0.0
    sub._live_server = sandbox or Sandbox()
    sub._mark = (sub._live_server, sub._live_server.cpu_seconds())
    return sub


def test_a_submission_that_sleeps_past_its_budget_is_not_judged_further(monkeypatch):
    monkeypatch.setattr(submission, "WALL_BUDGET", 1.0)  # a test-only budget
    monkeypatch.setattr(submission, "machine_busy", lambda: False)  # whatever the test load
    code = from_sources("sleepy.py", [("sleepy.py", SLEEPS_WHILE_LOADING)], module=True)
    results = judge_code(code, questions=True)
    assert {r.exercise for r in results} == {"attention_scores", "answer_02_1"}
    for r in results:
        assert not r.passed and "not judged" in r.message and "CPU time" in r.message, r
    assert next(r for r in results if r.exercise == "attention_scores").mistake == "timeout"


def test_the_budget_never_stops_code_that_computes(monkeypatch):
    monkeypatch.setattr(submission, "machine_busy", lambda: False)
    sub = bare(10 * submission.WALL_BUDGET, 2.5 * submission.WALL_BUDGET)
    sub._within_budget()  # a quarter of the time waited in CPU: a busy machine, not a sleeper
    sub.waited, sub.cpu = submission.WALL_BUDGET, 0.0
    sub._within_budget()  # not past the budget yet
    sub.waited = submission.WALL_BUDGET + 1
    try:
        sub._within_budget()
    except submission.LearnerTimeout as e:
        assert e.limit.value == "wall-clock" and e.cpu == 0.0
    else:
        raise AssertionError("a sleeper past its budget was judged on")


def test_a_busy_machine_never_turns_waiting_into_a_stop(monkeypatch, tmp_path):
    monkeypatch.setattr(replies, "PRESSURE", str(tmp_path / "none"))  # no PSI: the load average
    sub = bare(10 * submission.WALL_BUDGET, 0.0)  # would be stopped on an idle machine
    monkeypatch.setattr(replies.os, "getloadavg", lambda: (4.0, 4.0, 4.0))
    monkeypatch.setattr(replies.os, "cpu_count", lambda: 2)
    sub._within_budget()  # 4 runnable processes on 2 cores: slowed, not sleeping
    monkeypatch.setattr(replies.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    try:
        sub._within_budget()
    except submission.LearnerTimeout:
        pass
    else:
        raise AssertionError("a sleeper on an idle machine was judged on")


def test_a_machine_busy_with_the_submissions_own_processes_stops_it_all_the_same(monkeypatch):
    # The red team (round 5): 64 processes of its own keep the machine's CPU pressure high while
    # the judged one sleeps. The judge counts the CPU of every process of the sandbox itself.
    monkeypatch.setattr(submission, "machine_busy", lambda: True)
    sandbox = Sandbox(cpu=100.0)  # torch's import, earlier submissions: not this one's
    waited = 10 * submission.WALL_BUDGET
    sub = bare(waited, 0.0, sandbox)
    sandbox.cpu += 0.05 * waited  # the server's looks, say: a busy machine slowed it
    sub._within_budget()
    sandbox.cpu += 0.05 * waited  # its processes beyond the judged one: a tenth of the time
    with pytest.raises(submission.LearnerTimeout, match="not judged"):
        sub._within_budget()
    sub.cpu = 0.25 * waited  # what the judged processes used is theirs: computing, never stopped
    sub._within_budget()


def test_busy_is_cpu_pressure_where_the_kernel_counts_it_else_the_load_average(
    tmp_path, monkeypatch
):
    # The red team (round 3) hid spinners from the load average by sleeping around its 5 s
    # samples: CPU pressure counts every moment a runnable task waits, so nothing hides from it.
    pressure = tmp_path / "cpu"
    monkeypatch.setattr(replies, "PRESSURE", str(pressure))
    monkeypatch.setattr(replies.os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # looks idle
    pressure.write_text("some avg10=96.23 avg60=95.78 avg300=96.75 total=18804230830\n")
    assert replies.machine_busy()
    pressure.write_text("some avg10=0.50 avg60=1.00 avg300=0.20 total=1000\nfull avg10=0.00\n")
    assert not replies.machine_busy()
    monkeypatch.setattr(replies.os, "getloadavg", lambda: (99.0, 0.0, 0.0))
    assert not replies.machine_busy()  # the pressure decides where there is one
    pressure.unlink()
    assert replies.machine_busy()  # no PSI here: the load average

"""The red team's breaks after round 4 (notes: redteam3), each tried through the real sandbox.

1. A submission that changes the kept sandbox (its tmpfs roots' mode, attributes and ACL, fifos,
   sockets, a process left running, the server's priority and limits) costs the next student
   nothing: the reset restores or the sandbox is discarded; a learner process that cannot be set
   up is the grader's fault, retried in a fresh sandbox, never "your code ended the process".
2. Stopping the server that measures the peak memory (SIGSTOP) is refused: a full-matrix
   ``tiled_attention`` no longer passes by freezing the meter.
   A sampler that misses its looks (a busy machine) makes the measurement inconclusive: the
   call is measured again, and never passes on an inconclusive measurement; inconclusive in every
   try, the exercise is not judged (the machine's doing: ``grade`` judges it again and names it),
   never a zero for "tampering" (a correct tiled_attention under a loaded test suite once was).
3. A process started by one exercise does not run on into the next.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.core.extract import from_file
from autograder.core.judge import judge_code, judge_source
from autograder.core.result import NOT_JUDGED
from autograder.sandbox.host import pool, replies, submission
from autograder.sandbox.host.submission import MEASURE_TRIES, Submission
from autograder.sandbox.protocol import PEAK_UNMEASURED
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round4 import GOOD_MASK, PROBE, field, kept

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"
pytestmark = NEEDS_BWRAP
EPERM = "1"


# -- 1. a changed kept sandbox --------------------------------------------------------------------
def test_a_submission_that_changes_the_kept_sandbox_costs_the_next_student_nothing():
    a = kept((HOSTILE / "changes_the_kept_sandbox.py").read_text())
    did = field(a, "did").split(",")  # what it owns it may change (the reset undoes it):
    made = ("note", "fifo", "sock", "chmod")
    assert did == [*(f"{t}{w}" for t in "td" for w in made), "affinity"], a
    refused = dict(x.split(":") for x in field(a, "refused").split(",") if ":" in x)
    # Extended attributes and ACLs (stored as xattrs) are refused since round 10 (memory on the
    # tmpfs that no measure counted: tests/sandbox/test_round11.py), so they are not in `did`.
    for what in ("renice", "renice_user", "idle", "prlimit", "stop", "tstp", "tkill"):
        assert refused[what] == EPERM, (what, a)  # the seccomp filter
    for _ in range(2):  # the next students, in the same kept sandbox (or a fresh one)
        b = kept(GOOD_MASK)
        assert b.passed, b
    modes = "    modes = [oct(os.stat(p).st_mode & 0o7777) for p in ('/tmp', '/dev/shm')]\n"
    looks = PROBE.replace("    raise", modes + "    raise").replace(
        ';")', "modes={'/'.join(modes)} xattrs={len(os.listxattr('/tmp'))} ;\")"
    )
    probe = kept(looks)
    assert field(probe, "found") == "[]" and field(probe, "modes") == "0o1777/0o1777", probe
    assert field(probe, "xattrs") == "0", probe


def test_a_learner_process_that_cannot_be_set_up_is_the_graders_fault_and_retried_fresh():
    class Exercise:
        name, time_limit = "causal_mask", 10.0

    with pool.isolated(fresh=False) as first:
        with pytest.raises(replies.LearnerCrashed) as e:  # it fails before any learner code
            Submission([("s.py", GOOD_MASK)], {}, memory_limit="not a number")
        assert "not your code" in str(e.value) and "exit status" not in str(e.value), e.value
        assert pool.current_server() is not first  # discarded: retried in a fresh sandbox
    assert kept(GOOD_MASK).passed


# -- 2. stopping the meter -------------------------------------------------------------------------
def test_stopping_the_server_that_measures_memory_is_refused_and_the_full_matrix_fails():
    [r] = judge_source((HOSTILE / "stops_the_meter.py").read_text(), ["tiled_attention"])
    assert not r.passed, r
    assert "PermissionError" in r.message or r.mistake == "materialises-full-matrix", r


def test_the_solution_passes_the_memory_checks_on_this_busy_machine():
    solution = from_file(ROOT / "solutions" / "09_efficient" / "09_efficient.ipynb")
    from autograder.core.judge import judge_code

    [r] = judge_code(solution, ["tiled_attention"])
    assert r.passed, r


# -- 3. a process outliving its exercise ----------------------------------------------------------
OUTLIVES = """
import os, sys, time
def _unwatch():
    frame = sys._getframe(1)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back

def causal_mask(seq_len, device=None):
    _unwatch()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        time.sleep(600)
        os._exit(0)
    raise RuntimeError(f"started={pid} ;")

def padding_mask(lengths, max_len=None, device=None):
    alive = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    raise RuntimeError(f"alive={','.join(map(str, alive))} ;")
"""


def test_a_process_started_by_one_exercise_does_not_run_into_the_next():
    first, second = judge_source(OUTLIVES, ["causal_mask", "padding_mask"])
    started = field(first, "started")
    alive = field(second, "alive").split(",")
    assert started.isdigit() and started not in alive, (first, second)
    assert len(alive) == 3, second  # the server (pid 1), the learner process, this exercise's


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("spins", [True, False], ids=["learner-ran", "learner-waited"])
def test_a_gap_between_the_servers_looks_is_inconclusive_where_the_learner_ran_in_it(
    monkeypatch, spins
):
    """A peak reset in a gap would go unseen: a gap in which the learner's process ran longer
    than GAP_LIMIT leaves the call unmeasured. One in which it did not run (a busy machine keeps
    it waiting too) does not: a full run of the suite left a correct tiled_attention
    unmeasured five times in a row, every gap counted whatever the learner did in it."""
    from autograder.sandbox.inside import zygote
    from autograder.sandbox.inside.zygote import GAP_LIMIT, PeakMemory

    body = "while True: pass" if spins else "import time; time.sleep(60)"
    learner = subprocess.Popen([sys.executable, "-c", body])
    try:
        time.sleep(0.3)  # started (its start-up's CPU is before the call)
        monkeypatch.setattr(zygote, "_learner_pids", lambda contained: {learner.pid})
        peak = PeakMemory(contained=False)
        assert peak.start() == 0
        ran, deadline = _cpu_seconds(learner.pid), time.monotonic() + 60
        time.sleep(2 * GAP_LIMIT)  # no look meanwhile
        while spins and _cpu_seconds(learner.pid) - ran < 3 * GAP_LIMIT:
            assert time.monotonic() < deadline, "the learner never ran"
            time.sleep(0.05)
        if spins:
            assert peak.end() == PEAK_UNMEASURED
        else:
            assert peak.end() >= 0  # measured: nothing ran unseen
    finally:
        learner.kill()
        learner.wait()


def test_an_inconclusive_measurement_is_measured_again_and_never_passes(monkeypatch):
    from autograder.sandbox.host.server import Server

    real, answers = Server.measure, []

    def inconclusive(times):
        def measure(self, command, timeout=30.0):
            got = real(self, command, timeout)
            if command == b"high" and len(answers) < times:
                answers.append(got)
                return PEAK_UNMEASURED
            return got

        return measure

    class Exercise:
        name, time_limit = "f", 10.0

    source = "import torch\ndef f(n):\n    return float(torch.ones(n, n).sum())\n"
    monkeypatch.setattr(Server, "measure", inconclusive(1))
    with Submission([("f.py", source)], {}) as sub:
        sub.begin(Exercise)
        value, grew = sub.peak_memory("f", 2048)
        assert value == 2048.0**2 and grew >= 2048**2 * 4 * 0.9 and len(answers) == 1, grew
        answers.clear()
        monkeypatch.setattr(Server, "measure", inconclusive(99))
        with pytest.raises(replies.NotJudged, match="too busy") as raised:  # the machine's doing
            sub.peak_memory("f", 2048)
        assert not isinstance(raised.value, replies.Tampered)
        assert len(answers) == MEASURE_TRIES


def test_a_call_the_machine_keeps_from_being_measured_is_not_judged_not_zeroed(monkeypatch):
    from autograder.sandbox.host.server import Server

    real = Server.measure
    monkeypatch.setattr(
        Server,
        "measure",
        lambda self, command, timeout=30.0: (
            PEAK_UNMEASURED if command == b"high" else real(self, command, timeout)
        ),
    )
    monkeypatch.setattr(submission, "MEASURE_TRIES", 1)
    solution = from_file(ROOT / "solutions" / "09_efficient" / "09_efficient.ipynb")
    (result,) = judge_code(solution, only=["tiled_attention"])
    assert not result.passed and result.mistake == NOT_JUDGED, result
    assert "not a fault of your code" in result.message and "tamper" not in result.message

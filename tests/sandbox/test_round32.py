"""Red team round 32 (notes: rt32): a learner process that cannot take an exercise (its channel
gone while it idled) was started anew and the exercise tried again, with no bound. Learner code
that cuts its own channel as it loads (tests/sandbox/hostile/cuts_its_own_channel.py) made the
judge restart it ~1000 times per exercise, each restart running its definitions again: 122 s for
one exercise with nothing burnt per load, hours with the load's 30 CPU-s used each time. Now a
learner process is started again once per submission; the second time, that exercise and every
later one fail as the learner's crash, and nothing more is started."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.core.judge import judge_source
from autograder.core.registry import Gradable
from autograder.sandbox.host.replies import LearnerCrashed, LearnerTimeout
from autograder.sandbox.host.server import Server
from autograder.sandbox.host.submission import Submission
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round2 import GOOD_MASK

HOSTILE = (Path(__file__).parent / "hostile" / "cuts_its_own_channel.py").read_text()
EXERCISES = ["causal_mask", "padding_mask"]


@pytest.fixture
def loads(monkeypatch) -> list[int]:
    """One entry per learner process the judge starts (each runs the definitions)."""
    started = []
    spawn = Server.spawn

    def counted(self, *args, **kwargs):
        started.append(1)
        return spawn(self, *args, **kwargs)

    monkeypatch.setattr(Server, "spawn", counted)
    return started


@NEEDS_BWRAP
def test_a_learner_process_that_cuts_its_channel_is_started_again_once_then_fails(loads):
    results = judge_source(HOSTILE, EXERCISES)
    assert [r.exercise for r in results] == EXERCISES
    for r in results:
        assert not r.passed
        assert "stopped taking work, again after it was started anew" in r.message, r.message
    assert len(loads) == 2  # the first, and one started again: never one per try


@NEEDS_BWRAP
def test_a_learner_process_gone_while_idle_is_started_again_once_per_submission(loads):
    """Gone between two exercises (here: killed): the next exercise gets a new learner process and
    is judged; gone a second time, the learner's code is not started a third time."""
    exercise = Gradable("causal_mask", "04", lambda s: None, time_limit=5.0)
    with Submission([("good.py", GOOD_MASK)], {}) as sub:
        for _ in range(2):
            sub.begin(exercise)
            assert sub.call("causal_mask", 2).tolist() == [[True, False], [True, True]]
            sub._end_exercise()  # the exercise has ended; its learner process waits for the next
            _kill_learner_process(sub)
        assert len(loads) == 2
        with pytest.raises(LearnerCrashed, match="stopped taking work"):
            sub.begin(exercise)
    assert len(loads) == 2


BURNS = """import time
import torch
def _burn(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return seconds
_BURNT = _burn(1.0)
def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
"""


def _kill_learner_process(sub: Submission) -> None:
    server, pid = sub._live_server, sub._pid
    server.kill(pid)
    with server._changed:  # its end seen by the server (left for the judge to collect)
        assert server._changed.wait_for(lambda: pid in server._exited, 30.0)


@NEEDS_BWRAP
def test_every_run_of_the_definitions_in_a_submission_shares_one_cpu_budget(loads):
    """A learner process ended during an exercise (a time limit hit, or here: killed) is started
    again for the next one, and runs the definitions again: all those runs share twice the load's
    limit (2 x 3 s here). Definitions that burn 1 s run a few times (each charged its CPU time,
    the sandbox's overhead included), then the budget runs out, and nothing more is started.
    (How many runs exactly depends on that overhead, so the test does not fix it.)"""
    exercise = Gradable("causal_mask", "04", lambda s: None, time_limit=5.0)
    with Submission([("burns.py", BURNS)], {}, load_timeout=3.0) as sub:
        for _ in range(10):
            try:
                sub.begin(exercise)
            except LearnerTimeout as e:
                assert "again took them past 6 s of CPU time" in str(e), e
                break
            assert sub.call("causal_mask", 2).tolist() == [[True, False], [True, True]]
            _kill_learner_process(sub)  # while its exercise is open: the exercise ends with it
        else:
            raise AssertionError("the definitions were run 10 times: no budget")
        runs = len(loads)
        assert 3 <= runs <= 6, runs  # 6 CPU-s of 1 s runs: at most 6, and the overhead is small
        with pytest.raises(LearnerTimeout, match="again took them past 6 s of CPU time"):
            sub.begin(exercise)
    assert len(loads) == runs  # spent: nothing started for it

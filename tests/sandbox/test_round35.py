"""Red team round 35 (on the CPU-aware gap rule of the memory measure: no finding there), its lead.

What a learner process holds at the start of a measured call (``procfs._held``: its private
memory, read from ``/proc/<pid>/smaps``, capped at ``SMAPS_MAX``) was read as nothing held where it
could not be read (``_held(pid) or (0, 0)``): a process that grows its smaps past the cap, then
reuses a buffer filled before the call, would have its held memory go uncounted. The cap's own
comment said such a call fails: now it does, at the start and at the end of the call.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from autograder.sandbox.inside import zygote
from autograder.sandbox.inside.zygote import PeakMemory
from autograder.sandbox.protocol import PEAK_UNREADABLE


@pytest.fixture
def learner(monkeypatch):
    """A live process measured as the learner's (outside any sandbox: ``contained=False``)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    time.sleep(0.2)
    monkeypatch.setattr(zygote, "_learner_pids", lambda contained: {process.pid})
    yield process
    process.kill()
    process.wait()


def test_what_a_process_holds_unreadable_at_the_start_fails_the_call(learner, monkeypatch):
    assert PeakMemory(contained=False).start() == 0  # readable: measured
    monkeypatch.setattr(zygote, "_held", lambda pid: None)  # smaps past SMAPS_MAX, say
    assert PeakMemory(contained=False).start() == PEAK_UNREADABLE


def test_what_a_process_holds_unreadable_at_the_end_fails_the_call(learner, monkeypatch):
    peak = PeakMemory(contained=False)
    assert peak.start() == 0
    monkeypatch.setattr(zygote, "_held", lambda pid: None)
    assert peak.end() == PEAK_UNREADABLE

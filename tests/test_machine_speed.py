"""The session's report of the cores' speed (tests/machine_speed.py)."""

from __future__ import annotations

import time

from machine_speed import Probe, loop_cpu_s


def test_the_loop_is_timed_in_cpu_time_and_grows_with_its_steps():
    small = min(loop_cpu_s(50_000) for _ in range(3))
    large = min(loop_cpu_s(500_000) for _ in range(3))
    assert 0 < small < large


def test_the_probe_times_the_loop_while_the_session_runs_and_sums_it_up():
    probe = Probe(period_s=0.05)
    assert probe.summary() is None  # nothing timed: no line
    probe.pytest_sessionstart(None)
    deadline = time.monotonic() + 30
    while len(probe.times) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    probe.stop()
    line = probe.summary()
    assert len(probe.times) >= 3 and all(t > 0 for t in probe.times)
    fastest = min(probe.times)
    assert f"{1000 * fastest:.0f} ms of CPU at its fastest" in line
    assert f"in {len(probe.times)} timings" in line

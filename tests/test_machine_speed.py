"""The session's report of the cores' speed (tests/machine_speed.py)."""

from __future__ import annotations

import time

from machine_speed import Probe, fresh_memory_s, loop_cpu_s


def test_the_loop_is_timed_in_cpu_time_and_grows_with_its_steps():
    small = min(loop_cpu_s(50_000) for _ in range(3))
    large = min(loop_cpu_s(500_000) for _ in range(3))
    assert 0 < small < large


def test_new_memory_is_timed_in_cpu_time_and_grows_with_its_size():
    small = min(fresh_memory_s(4) for _ in range(3))
    large = min(fresh_memory_s(64) for _ in range(3))
    assert 0 < small < large


def test_the_probe_times_both_while_the_session_runs_and_sums_them_up():
    probe = Probe(period_s=0.05)
    assert probe.summary() is None  # nothing timed: no line
    probe.pytest_sessionstart(None)
    deadline = time.monotonic() + 30
    while len(probe.times["memory"]) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    probe.stop()
    line = probe.summary()
    loop, memory = probe.times["loop"], probe.times["memory"]
    assert len(loop) == len(memory) >= 3 and all(t > 0 for t in loop + memory)
    assert f"({len(memory)} timings of CPU time)" in line
    assert f"a fixed loop {1000 * min(loop):.0f} ms at the fastest" in line
    assert f"of new memory {1000 * min(memory):.0f} ms at the fastest" in line

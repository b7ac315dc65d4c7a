"""How fast the cores ran during the test session: a line after the results, not a test.

The suite is CPU-bound (under ``make test`` both cores are busy nearly all the time), so its
duration is its CPU work divided by the cores' speed. On a shared virtual machine that speed is not
constant. On the course's 2-core machine, idle, the same pure-Python loop of 10**7 steps took
0.44 s in some minutes and 0.70 s in others (timed every 4 s), with no steal time counted, and a
busy loop on the machine's other core did not slow it: the load was outside the machine. Nearly
the same tree's suite took 485 s in one run and 633 s in another (893 against 1142 CPU-s for the
same tests). A duration of ``make test`` means little without the speed it ran at.

So the session's main process times a fixed loop (its own thread's CPU time) every
:data:`PERIOD_S` seconds, and the last line of the run gives the times: the fastest, the median,
and the median as a multiple of the fastest. Compare the milliseconds across runs: the fastest
seen on the 2-core machine is about 44 ms for :data:`STEPS`.
"""

from __future__ import annotations

import statistics
import threading
import time

PERIOD_S = 10.0
STEPS = 1_000_000  # about 45-70 ms: 0.5% of one core at one timing every 10 s


def loop_cpu_s(steps: int = STEPS) -> float:
    """The CPU time of this thread for a fixed loop of ``steps`` additions (no memory, no I/O)."""
    start = time.thread_time()
    total = 0
    for i in range(steps):
        total += i & 7
    return time.thread_time() - start


class Probe:
    """Registered by ``tests/conftest.py`` in the session's main process (not in xdist workers)."""

    def __init__(self, period_s: float = PERIOD_S):
        self.period_s, self.times = period_s, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="machine-speed", daemon=True)
        self._started = time.monotonic()

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            self.times.append(loop_cpu_s())

    def pytest_sessionstart(self, session) -> None:
        self._started = time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        """Stop timing; a timing under way is finished first."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def summary(self) -> str | None:
        if not self.times:
            return None
        fastest, median = min(self.times), statistics.median(self.times)
        return (
            f"machine speed: a fixed loop took {1000 * fastest:.0f} ms of CPU at its fastest and "
            f"{1000 * median:.0f} ms at the median ({median / fastest:.2f}x) in "
            f"{len(self.times)} timings over {time.monotonic() - self._started:.0f} s "
            "(tests/machine_speed.py: read a duration of the suite with it)"
        )

    def pytest_unconfigure(self, config) -> None:  # after the line of the session's results
        self.stop()
        reporter, line = config.pluginmanager.get_plugin("terminalreporter"), self.summary()
        if reporter is not None and line:
            reporter.write_line(line)

"""How fast the machine ran during the test session: a line after the results, not a test.

The suite is CPU-bound (under ``make test`` both cores are busy nearly all the time), and the same
work does not cost the same CPU time from one run to the next on the course's 2-core virtual
machine. Nearly the same tree's suite took 485 s in one run and 633 s in another: 893 against 1142
CPU-s for the same tests. Not evenly: what starts many processes (notebook kernels, Dask workers,
command lines) cost 1.3-1.6 times as much, what computes in an already warm sandbox (the real-world
implementations) 1.03 times. Two measures that move on their own, idle, minutes apart:

- the cores' speed: a pure-Python loop of 10**7 steps took 0.44 s in some minutes and 0.70 s in
  others, timed every 4 s, with no steal time counted (a busy loop on the other core did not slow
  it);
- new memory: writing one byte per page of 6 GiB just mapped took 2.9-3.6 s.

So the session's main process times both, in its own thread's CPU time, every :data:`PERIOD_S`
seconds: a fixed loop (:func:`loop_cpu_s`) and :data:`MEMORY_MIB` MiB of new memory
(:func:`fresh_memory_s`). The last line of the run gives each one's fastest and median times, so
that a duration of the suite can be read with the speed it ran at: compare the milliseconds across
runs.
"""

from __future__ import annotations

import mmap
import statistics
import threading
import time

PERIOD_S = 10.0
STEPS = 1_000_000  # about 40-70 ms of CPU
MEMORY_MIB = 64  # about 30 ms: both together, under 1% of one core at one timing every 10 s


def loop_cpu_s(steps: int = STEPS) -> float:
    """The CPU time of this thread for a fixed loop of ``steps`` additions (no memory, no I/O)."""
    start = time.thread_time()
    total = 0
    for i in range(steps):
        total += i & 7
    return time.thread_time() - start


def fresh_memory_s(mib: int = MEMORY_MIB) -> float:
    """The CPU time of this thread to map ``mib`` MiB of new memory, write a byte on each of its
    pages (each write a page fault, what a new process pays for its memory) and unmap it."""
    size = mib << 20
    start = time.thread_time()
    with mmap.mmap(-1, size) as memory:
        for offset in range(0, size, mmap.PAGESIZE):
            memory[offset] = 1
    return time.thread_time() - start


class Probe:
    """Registered by ``tests/conftest.py`` in the session's main process (not in xdist workers)."""

    def __init__(self, period_s: float = PERIOD_S):
        self.period_s = period_s
        self.times: dict[str, list[float]] = {"loop": [], "memory": []}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="machine-speed", daemon=True)
        self._started = time.monotonic()

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            self.times["loop"].append(loop_cpu_s())
            self.times["memory"].append(fresh_memory_s())

    def pytest_sessionstart(self, session) -> None:
        self._started = time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        """Stop timing; a timing under way is finished first."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def summary(self) -> str | None:
        loop, memory = self.times["loop"], self.times["memory"]
        if not memory:
            return None

        def said(times: list[float]) -> str:
            fastest, median = min(times), statistics.median(times)
            return (
                f"{1000 * fastest:.0f} ms at the fastest, {1000 * median:.0f} ms at the median "
                f"({median / fastest:.2f}x)"
            )

        count = f"{len(memory)} timing{'s' if len(memory) != 1 else ''} of CPU time"
        return (
            f"machine speed over {time.monotonic() - self._started:.0f} s ({count}): "
            f"a fixed loop {said(loop)}; {MEMORY_MIB} MiB of new memory {said(memory)} "
            "(tests/machine_speed.py)"
        )

    def pytest_unconfigure(self, config) -> None:  # after the line of the session's results
        self.stop()
        reporter, line = config.pluginmanager.get_plugin("terminalreporter"), self.summary()
        if reporter is not None and line:
            reporter.write_line(line)

"""What the learner reads when its code runs past a limit: the CPU time of its definitions, the
wall-clock backstop against code that sleeps or waits (:func:`wall_backstop`), and the wait a
whole submission may cost the judge (:func:`kept_waiting`)."""

from __future__ import annotations

from autograder.i18n import _
from autograder.sandbox.host.replies import LearnerTimeout
from autograder.sandbox.protocol import ErrorKind


def wall_backstop(cpu_limit: float) -> float:
    """Wall-clock seconds before code under a ``cpu_limit`` is stopped anyway (it sleeps, or
    waits): generous, so that on a machine busy with 3 others per core the CPU limit decides."""
    return 4 * cpu_limit + 10


def wall_timeout(cpu_limit: float, cpu: float | None = None) -> LearnerTimeout:
    """The wall-clock backstop of an exercise under ``cpu_limit`` was reached (``cpu`` used)."""
    wall = wall_backstop(cpu_limit)
    message = _(
        "your code was still running after {wall:.0f} s of wall-clock time without using its "
        "{limit:g} s of CPU time: it sleeps or waits for something that never comes (input(), a "
        "lock, time.sleep)"
    ).format(wall=wall, limit=cpu_limit)
    return LearnerTimeout(message, ErrorKind.WALL_CLOCK, wall, cpu)


def load_timeout(limit: ErrorKind, seconds: float, again: bool = False) -> LearnerTimeout:
    """Running the learner's definitions hit ``limit`` (of ``seconds``; ``again``: all runs)."""
    why = (
        _(
            "running your definitions was still not done after {seconds:.0f} s of wall-clock "
            "time (the backstop against code that sleeps or waits)"
        )
        if limit == ErrorKind.WALL_CLOCK
        else _(
            "running your definitions used more than {seconds:.0f} s of CPU time (a loop or "
            "heavy computation at the top level of a cell?)"
        )
    )
    if again:  # the budget of every run in one submission (Submission._start)
        why = _(
            "running your definitions again took them past {seconds:.0f} s of CPU time, "
            "counting each time they ran"
        )
    return LearnerTimeout(why.format(seconds=seconds), limit)


def kept_waiting(waited: float, cpu: float, budget: float) -> LearnerTimeout:
    """The submission kept the judge waiting past ``budget`` seconds on little CPU."""
    said = _(
        "not judged: your code had already kept the grader waiting {waited:.0f} s of wall-clock "
        "time while using {cpu:.1f} s of CPU time (the limit is {budget:.0f} s of waiting on "
        "code that sleeps or waits: time.sleep, input(), a lock); the rest of this notebook is "
        "not judged"
    )
    return LearnerTimeout(
        said.format(waited=waited, cpu=cpu, budget=budget),
        ErrorKind.WALL_CLOCK,
        waited,
        cpu,
    )

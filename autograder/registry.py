"""The exercises the grader knows, keyed by their contract name.

A check module registers each exercise with :func:`exercise`::

    @exercise("causal_mask", lesson="04", points=1, forbid=("torch.tril",))
    def check_causal_mask(sub: Submission) -> None:
        ...  # raise CheckFailure on the first thing that is wrong

``forbid`` names what the learner may not call while this exercise is judged, as dotted names
resolved in the sandbox: a Python function or class (every method of a class counts), a torch
callable such as ``torch.softmax`` or ``torch.Tensor.softmax`` (caught through torch's function
mode, however it is reached), or an ATen op such as ``aten._softmax`` (caught at dispatch, however
it is reached). ``course_lib``'s own reference of the exercise is always forbidden.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.sandbox import Submission


class CheckFailure(Exception):
    """What a check raises when the learner's code is wrong.

    ``message`` says what was checked and what went wrong (with the smallest failing example:
    shapes and a few numbers, yours vs expected); ``mistake`` is the id of the catalogue entry it
    looks like, or None when it looks like none.
    """

    def __init__(self, message: str, *, mistake: str | None = None):
        super().__init__(message)
        self.message = message
        self.mistake = mistake


@dataclass(frozen=True)
class Exercise:
    name: str  # the contract name: a function or class the learner defines
    lesson: str  # "01", "02", ...
    check: Callable[[Submission], None]
    points: float = 1.0
    forbid: tuple[str, ...] = ()
    time_limit: float = 20.0  # seconds of wall time for all of this exercise's calls
    needs: tuple[str, ...] = field(default=())  # other names the check calls (reported if missing)


EXERCISES: dict[str, Exercise] = {}


def exercise(
    name: str,
    *,
    lesson: str,
    points: float = 1.0,
    forbid: tuple[str, ...] = (),
    time_limit: float = 20.0,
    needs: tuple[str, ...] = (),
) -> Callable[[Callable[[Submission], None]], Callable[[Submission], None]]:
    """Register ``check`` as the judge of exercise ``name``."""

    def register(check: Callable[[Submission], None]) -> Callable[[Submission], None]:
        if name in EXERCISES:
            raise ValueError(f"exercise {name!r} is registered twice")
        EXERCISES[name] = Exercise(name, lesson, check, points, tuple(forbid), time_limit, needs)
        return check

    return register


def all_exercises() -> dict[str, Exercise]:
    """Every registered exercise (importing the check modules registers them)."""
    import autograder.checks  # noqa: F401  (registers on import)

    return EXERCISES

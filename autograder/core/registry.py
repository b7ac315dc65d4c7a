"""The exercises the grader knows, keyed by their contract name, in course order.

Nothing registers itself: :func:`all_exercises` takes the exercises from the contract table
(``autograder.contract``: name, lesson folder, points) and finds each one's check in its lesson
folder's ``checks.py``, the function marked ``@exercise(name, ...)`` (``autograder.kit``), which
also gives what the exercise forbids and its time limit. A contract exercise without a check, a
check in the wrong lesson folder or for a name the contract lacks is an error here, at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from autograder.contract import CONTRACT
from autograder.core import lesson_folders
from autograder.kit.exercise import ExerciseMark, rules_of

if TYPE_CHECKING:
    from autograder.sandbox.host.submission import Submission


@dataclass(frozen=True)
class Gradable:
    """What the judge grades: a contract exercise with its check (or a conceptual question as
    one, :mod:`autograder.core.judge`), what it forbids and its time limit."""

    name: str  # the contract name: a function or class the learner defines
    lesson: str  # its lesson folder, e.g. "04_softmax_masks"
    check: Callable[[Submission], None]
    points: float = 1.0
    forbid: tuple[str, ...] = ()
    time_limit: float = 20.0  # seconds of wall time for all of this exercise's calls
    needs: tuple[str, ...] = field(default=())  # other names the check calls (reported if missing)
    forbid_why: tuple[tuple[str, str], ...] = ()  # (name, why it is forbidden), see kit.exercise
    measures_memory: bool = False  # its exercise process maps large blocks (worker.py)


def checks_by_lesson() -> dict[str, dict[str, tuple[Callable, ExerciseMark]]]:
    """Every lesson folder's marked checks: ``{lesson: {exercise name: (check, rules)}}``."""
    found: dict[str, dict[str, tuple[Callable, ExerciseMark]]] = {}
    for lesson in lesson_folders.lessons():
        module = lesson_folders.load(lesson, "checks")
        marked = {}
        for obj in vars(module).values() if module else ():
            rules = rules_of(obj)
            if rules is not None and obj.__module__ == module.__name__:
                if rules.name in marked:
                    raise ValueError(f"{lesson}/checks.py marks two checks of {rules.name!r}")
                marked[rules.name] = (obj, rules)
        found[lesson] = marked
    return found


@cache
def _exercises() -> tuple[Gradable, ...]:
    found = checks_by_lesson()
    out = []
    for entry in CONTRACT:
        check, rules = found.get(entry.lesson, {}).pop(entry.name, (None, None))
        if check is None:
            raise LookupError(
                f"exercise {entry.name!r} has no check: mark one with @exercise({entry.name!r}) "
                f"in autograder/lessons/{entry.lesson}/checks.py"
            )
        out.append(
            Gradable(
                entry.name,
                entry.lesson,
                check,
                entry.points,
                rules.forbid,
                rules.time_limit,
                rules.needs,
                rules.forbid_why,
                rules.measures_memory,
            )
        )
    stray = {f"{lesson}: {name}" for lesson, marked in found.items() for name in marked}
    if stray:
        raise LookupError(
            f"checks of exercises the contract table does not list in that lesson: {sorted(stray)}"
        )
    return tuple(out)


def all_exercises() -> dict[str, Gradable]:
    """Every exercise of the contract with its check, in course order (a fresh dict)."""
    return {ex.name: ex for ex in _exercises()}

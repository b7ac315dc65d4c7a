"""What to practise next: the FSRS spaced-repetition scheduler (the ``fsrs`` package) over the
history.

Each attempt is a review of its drill, rated from the result: a fail (or a pass after the model
answer was revealed) is ``Again``, a pass slower than the drill's target time ``Hard``, a pass
within it ``Good``, within half of it ``Easy``. FSRS turns the reviews into a due date per drill,
so failed and slow drills come back sooner.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fsrs import Card, Rating, Scheduler

from autograder.drill.catalogue import DRILLS, Drill
from autograder.drill.history import Attempt, History


def rating(attempt: Attempt, drill: Drill) -> Rating:
    if not attempt.passed or attempt.revealed:
        return Rating.Again
    if attempt.seconds is None or attempt.seconds <= drill.target_seconds:
        if attempt.seconds is not None and attempt.seconds <= drill.target_seconds / 2:
            return Rating.Easy
        return Rating.Good
    return Rating.Hard


def card(drill: Drill, attempts: list[Attempt]) -> Card:
    """The drill's FSRS card after replaying its attempts in order."""
    scheduler = Scheduler(enable_fuzzing=False)
    c = Card()
    for a in sorted(attempts, key=lambda a: a.at):
        c, _ = scheduler.review_card(c, rating(a, drill), datetime.fromisoformat(a.at))
    return c


@dataclass(frozen=True)
class Due:
    drill: Drill
    due: datetime | None  # None: never tried
    reason: str


def plan(history: History, at: datetime) -> list[Due]:
    """Every drill in the order to practise them at time ``at``: the tried drills that are due,
    most overdue first; then the untried ones, easiest first; then the rest by due date."""
    due, new, later = [], [], []
    for drill in DRILLS.values():
        attempts = history.of(drill.name)
        if not attempts:
            new.append(Due(drill, None, "never tried"))
            continue
        c = card(drill, attempts)
        last = attempts[-1]
        what = "failed last time" if not last.passed else "passed last time"
        if c.due <= at:
            due.append(Due(drill, c.due, f"{what}; due since {c.due:%Y-%m-%d %H:%M} UTC"))
        else:
            later.append(Due(drill, c.due, f"{what}; due {c.due:%Y-%m-%d %H:%M} UTC"))
    new.sort(key=lambda d: (d.drill.difficulty, d.drill.minutes))
    return (
        sorted(due, key=lambda d: d.due) + new + sorted(later, key=lambda d: d.due)  # type: ignore[arg-type,return-value]
    )

"""The history summarised: attempts, pass rate, median time to a pass, recurring mistakes."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from autograder.core.mistakes import MISTAKES
from autograder.drill.catalogue import DRILLS
from autograder.drill.history import History


@dataclass(frozen=True)
class DrillStats:
    drill: str
    attempts: int
    passes: int
    median_seconds: float | None  # of the timed passing attempts
    target_seconds: float

    @property
    def pass_rate(self) -> float:
        return self.passes / self.attempts


def per_drill(history: History) -> list[DrillStats]:
    rows = []
    for name in dict.fromkeys(a.drill for a in history.attempts):
        attempts = history.of(name)
        times = [a.seconds for a in attempts if a.passed and a.seconds is not None]
        target = DRILLS[name].target_seconds if name in DRILLS else float("nan")
        rows.append(
            DrillStats(
                name,
                len(attempts),
                sum(a.passed for a in attempts),
                statistics.median(times) if times else None,
                target,
            )
        )
    return rows


def recurring_mistakes(history: History) -> list[tuple[str, int]]:
    """Mistake ids seen more than once, most frequent first."""
    counts = Counter(m for a in history.attempts for m in a.mistakes)
    return [(m, n) for m, n in counts.most_common() if n > 1]


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 60:.1f} min"


def text(history: History) -> str:
    rows = per_drill(history)
    if not rows:
        return "No attempts yet. Start one: python -m autograder drill next"
    total = sum(r.attempts for r in rows)
    passes = sum(r.passes for r in rows)
    width = max(len(r.drill) for r in rows)
    lines = [
        f"{total} attempts, {passes} passed ({passes / total:.0%}), {len(rows)} drills tried",
        f"  {'drill':<{width}}  attempts  pass rate  median time to pass  target",
    ]
    for r in rows:
        lines.append(
            f"  {r.drill:<{width}}  {r.attempts:>8}  {r.pass_rate:>9.0%}  "
            f"{_minutes(r.median_seconds):>19}  {_minutes(r.target_seconds)}"
        )
    recurring = recurring_mistakes(history)
    if recurring:
        lines.append("Recurring mistakes:")
        for mistake, n in recurring:
            title = MISTAKES[mistake].title if mistake in MISTAKES else ""
            lines.append(f"  {n}x [{mistake}] {title}")
    return "\n".join(lines)


def plot(history: History, path: str) -> None:
    """The same summary as a PNG: pass rate and median time against the target, per drill."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = per_drill(history)
    names = [r.drill for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.5 * len(rows) + 2), sharey=True)
    left.barh(names, [r.pass_rate for r in rows], color="tab:green")
    left.set_xlim(0, 1)
    left.set_xlabel("pass rate")
    medians = [(r.median_seconds or 0) / 60 for r in rows]
    right.barh(names, medians, color="tab:blue", label="median time to pass")
    right.scatter([r.target_seconds / 60 for r in rows], names, color="k", marker="|", s=200)
    right.set_xlabel("minutes (| = target)")
    fig.suptitle(f"Drill history: {sum(r.attempts for r in rows)} attempts")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)

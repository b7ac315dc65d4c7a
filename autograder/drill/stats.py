"""The history summarised: attempts, pass rate, median time to a pass, recurring mistakes.

A pass after the model answer was shown (a *revealed* pass) is counted apart: the pass rate and
the median time to pass are those of clean passes only."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from autograder.drill.catalogue import DRILLS
from autograder.drill.extra.judging import title_and_hint
from autograder.drill.history import History


@dataclass(frozen=True)
class DrillStats:
    drill: str
    attempts: int
    passes: int  # clean passes: the model answer was not shown first
    median_seconds: float | None  # of the timed clean passes
    target_seconds: float
    revealed_passes: int = 0  # passes after a reveal: in neither the rate nor the median
    last_rating: str = ""  # the rating of the drill's latest review

    @property
    def pass_rate(self) -> float:
        return self.passes / self.attempts


def per_drill(history: History) -> list[DrillStats]:
    rows = []
    for name in dict.fromkeys(a.drill for a in history.attempts):
        from autograder.drill.schedule import reviews

        attempts = history.of(name)
        clean = [a for a in attempts if a.passed and not a.revealed]
        times = [a.seconds for a in clean if a.seconds is not None]
        target = DRILLS[name].target_seconds if name in DRILLS else float("nan")
        rs = reviews(history, name) if name in DRILLS else []
        rows.append(
            DrillStats(
                name,
                len(attempts),
                len(clean),
                statistics.median(times) if times else None,
                target,
                sum(a.passed and a.revealed for a in attempts),
                rs[-1].rating.name if rs else "",
            )
        )
    return rows


def recurring_mistakes(history: History) -> list[tuple[str, int]]:
    """Mistake ids seen more than once, most frequent first."""
    counts = Counter(m for a in history.attempts for m in a.mistakes)
    return [(m, n) for m, n in counts.most_common() if n > 1]


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 60:.1f} min"


def quiz_line(history: History) -> str | None:
    if not history.answers:
        return None
    right = sum(a["correct"] for a in history.answers)
    asked = len({a["question"] for a in history.answers})
    n = len(history.answers)
    return (
        f"Quiz: {n} answer{'s' * (n != 1)} to {asked} question{'s' * (asked != 1)}, {right} "
        f"right ({right / n:.0%})"
    )


def text(history: History, start: str = "python -m autograder drill next") -> str:
    rows = per_drill(history)
    quiz = quiz_line(history)
    if not rows:
        return "\n".join(filter(None, [f"No attempts yet. Start one: {start}", quiz]))
    total = sum(r.attempts for r in rows)
    passes = sum(r.passes for r in rows)
    revealed = sum(r.revealed_passes for r in rows)
    width = max(len(r.drill) for r in rows)
    lines = [
        f"{total} attempts, {passes} passed ({passes / total:.0%}), {revealed} more passed "
        f"after a reveal (not counted as passes), {len(rows)} drills tried",
        f"  {'drill':<{width}}  attempts  passed  pass rate  revealed  median time to pass  "
        "target    last review",
    ]
    for r in rows:
        lines.append(
            f"  {r.drill:<{width}}  {r.attempts:>8}  {r.passes:>6}  {r.pass_rate:>9.0%}  "
            f"{r.revealed_passes:>8}  {_minutes(r.median_seconds):>19}  "
            f"{_minutes(r.target_seconds):<8}  {r.last_rating}"
        )
    lines.append(
        "  (pass rate and median time: clean passes only; a pass after `reveal` is "
        "counted under revealed)"
    )
    recurring = recurring_mistakes(history)
    if recurring:
        lines.append("Recurring mistakes:")
        for mistake, n in recurring:
            entry = title_and_hint(mistake)
            lines.append(f"  {n}x [{mistake}] {entry.title if entry else ''}")
    if quiz:
        lines.append(quiz)
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

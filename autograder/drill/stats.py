"""The history summarised: reviews, pass rate, median time to a pass, recurring mistakes.

Counted per review, as the rating counts them (:mod:`schedule`: one session's checks of a drill,
or a run of checks that ends at a pass), with the checks as a secondary figure: fail, fail, pass
is one passed review of 3 checks. A review passed after the model answer was shown (a *revealed*
pass) is counted apart: the pass rate and the median time to pass are those of clean passes."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from autograder.drill.catalogue import DRILLS
from autograder.drill.history import History
from autograder.i18n import _


@dataclass(frozen=True)
class DrillStats:
    drill: str
    reviews: int  # the goes at the drill (each one rating)
    passes: int  # reviews passed clean: the model answer was not shown first
    median_seconds: float | None  # of the timed clean passes
    target_seconds: float
    revealed_passes: int = 0  # passes after a reveal: in neither the rate nor the median
    last_rating: str = ""  # the rating of the drill's latest review
    checks: int = 0  # every check, failed ones included

    @property
    def pass_rate(self) -> float:
        return self.passes / self.reviews


def per_drill(history: History) -> list[DrillStats]:
    from autograder.drill.schedule import review_groups, reviews

    rows = []
    for name in dict.fromkeys(a.drill for a in history.attempts):
        attempts = history.of(name)
        groups = review_groups(attempts)
        passes = [next((a for a in g if a.passed), None) for g in groups]
        clean = [a for a in passes if a is not None and not a.revealed]
        times = [a.seconds for a in clean if a.seconds is not None]
        target = DRILLS[name].target_seconds if name in DRILLS else float("nan")
        rs = reviews(history, name) if name in DRILLS else []
        rows.append(
            DrillStats(
                name,
                len(groups),
                len(clean),
                statistics.median(times) if times else None,
                target,
                sum(a is not None and a.revealed for a in passes),
                rs[-1].rating.name if rs else "",
                len(attempts),
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
    total = sum(r.reviews for r in rows)
    checks = sum(r.checks for r in rows)
    passes = sum(r.passes for r in rows)
    revealed = sum(r.revealed_passes for r in rows)
    width = max(len(r.drill) for r in rows)
    lines = [
        f"{total} review{'s' * (total != 1)}, {passes} passed ({passes / total:.0%}), "
        f"{revealed} more passed after a reveal (not counted as passes), {len(rows)} drills "
        f"tried, {checks} checks",
        f"  {'drill':<{width}}  reviews  passed  pass rate  revealed  median time to pass  "
        "target    last review  checks",
    ]
    for r in rows:
        lines.append(
            f"  {r.drill:<{width}}  {r.reviews:>7}  {r.passes:>6}  {r.pass_rate:>9.0%}  "
            f"{r.revealed_passes:>8}  {_minutes(r.median_seconds):>19}  "
            f"{_minutes(r.target_seconds):<8}  {r.last_rating:<11}  {r.checks:>6}"
        )
    lines.append(
        "  (a review: one go at a drill, however many checks, as the rating counts it; pass "
        "rate and median time: clean passes only, a pass after `reveal` is under revealed)"
    )
    recurring = recurring_mistakes(history)
    if recurring:
        from autograder.drill.extra.judging import title_and_hint  # the kit: only when needed

        lines.append(_("Recurring mistakes:"))
        for mistake, n in recurring:
            entry = title_and_hint(mistake)
            title = _(entry.title) if entry else ""
            lines.append(f"  {n}x [{mistake}] {title}")
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
    fig.suptitle(f"Drill history: {sum(r.reviews for r in rows)} reviews")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)

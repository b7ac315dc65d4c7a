"""The history summarised: reviews, pass rate, median time to a pass, recurring mistakes.

Counted per review, as the rating counts them (:mod:`schedule`: one session's checks of a drill,
or a run of checks that ends at a pass), with the checks as a secondary figure: fail, fail, pass
is one passed review of 3 checks. A review passed after the model answer was shown (a *revealed*
pass) is counted apart: the pass rate and the median time to pass are those of clean passes."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from fsrs import Rating

from autograder.drill.catalogue import DRILLS
from autograder.drill.history import History
from autograder.i18n import N_, _, ljust, ngettext, rjust
from autograder.i18n import cells as cjk


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
    return "-" if seconds is None else _("{minutes} min").format(minutes=f"{seconds / 60:.1f}")


def quiz_line(history: History) -> str | None:
    if not history.answers:
        return None
    right = sum(a["correct"] for a in history.answers)
    asked = len({a["question"] for a in history.answers})
    n = len(history.answers)
    answers = ngettext("{n} answer", "{n} answers", n).format(n=n)
    questions = ngettext("{n} question", "{n} questions", asked).format(n=asked)
    return _("Quiz: {answers} to {questions}, {right} right ({rate})").format(
        answers=answers, questions=questions, right=right, rate=f"{right / n:.0%}"
    )


# the table's columns: heading and width (its rows are aligned to these)
COLUMNS = (
    (N_("reviews"), 7),
    (N_("passed"), 6),
    (N_("pass rate"), 9),
    (N_("revealed"), 8),
    (N_("median time to pass"), 19),
)


def text(history: History, start: str = "python -m autograder drill next") -> str:
    """The summary in the reader's language (the drill and mistake ids as they are)."""
    from autograder.drill.schedule import rating_name

    rows = per_drill(history)
    quiz = quiz_line(history)
    if not rows:
        return "\n".join(
            filter(None, [_("No attempts yet. Start one: {command}").format(command=start), quiz])
        )
    total = sum(r.reviews for r in rows)
    checks = sum(r.checks for r in rows)
    passes = sum(r.passes for r in rows)
    revealed = sum(r.revealed_passes for r in rows)
    width = max([len(r.drill) for r in rows] + [cjk(_("drill"))])
    head = [rjust(_(h), w) for h, w in COLUMNS]
    head += [ljust(_("target"), 8), ljust(_("last review"), 11), rjust(_("checks"), 6)]
    widths = [cjk(h) for h in head]  # each column as wide as its heading, the target's too
    widths[5] = max([widths[5]] + [cjk(_minutes(r.target_seconds)) for r in rows])
    head[5] = ljust(head[5], widths[5])
    lines = [
        (
            _(
                "{reviews}, {passes} passed ({rate}), {revealed} more passed after a reveal (not "
                "counted as passes), {drills} tried, {checks}"
            )
            if revealed  # (none: not said, '0 more passed' read as a fact to notice)
            else _("{reviews}, {passes} passed ({rate}), {drills} tried, {checks}")
        ).format(
            reviews=ngettext("{n} review", "{n} reviews", total).format(n=total),
            passes=passes,
            rate=f"{passes / total:.0%}",
            revealed=revealed,
            drills=ngettext("{n} drill", "{n} drills", len(rows)).format(n=len(rows)),
            checks=ngettext("{n} check", "{n} checks", checks).format(n=checks),
        ),
        "  " + "  ".join([ljust(_("drill"), width), *head]),
    ]
    for r in rows:
        last = rating_name(Rating[r.last_rating]) if r.last_rating else ""
        right = [r.reviews, r.passes, f"{r.pass_rate:.0%}", r.revealed_passes]
        right += [_minutes(r.median_seconds)]
        shown = [rjust(str(c), w) for c, w in zip(right, widths, strict=False)]
        shown += [ljust(_minutes(r.target_seconds), widths[5]), ljust(last, widths[6])]
        shown += [rjust(str(r.checks), widths[7])]
        lines.append(f"  {r.drill:<{width}}  " + "  ".join(shown))
    lines.append(
        _(
            "  (a review: one go at a drill, however many checks, as the rating counts it; pass "
            "rate and median time: clean passes only, a pass after `reveal` is under revealed)"
        )
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

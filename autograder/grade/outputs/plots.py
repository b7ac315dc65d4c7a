"""The class report's plots: matplotlib figures (no pyplot state), embedded as base64 PNGs.

No learner text reaches a plot: labels are the course's exercise and question names.
"""

from __future__ import annotations

import base64
import io


def _png(fig) -> str:
    """``data:image/png;base64,...`` for ``fig`` (deterministic: no software or date metadata)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def pass_rates(labels: list[str], rates: list[float]) -> str:
    """Horizontal bars: the share of submissions passing each item, top to bottom in order."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 0.9 + 0.32 * len(labels)), layout="constrained")
    ax = fig.add_subplot()
    y = list(range(len(labels)))
    ax.barh(y, [100 * r for r in rates], color="#3b7dd8")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("submissions passing (%)")
    for i, r in enumerate(rates):
        ax.text(min(100 * r + 1, 88), i, f"{100 * r:.0f}%", va="center", fontsize=8)
    return _png(fig)


def score_histogram(totals: list[float], max_points: float) -> str:
    """The distribution of the assignment's totals, from 0 to its maximum."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 2.8), layout="constrained")
    ax = fig.add_subplot()
    top = max(max_points, max(totals, default=0.0))
    if top <= 30:  # one bar per point
        bins = [b - 0.5 for b in range(int(top) + 2)]
    else:
        bins = [top * i / 20 for i in range(21)]
    ax.hist(totals, bins=bins, color="#3b7dd8", edgecolor="white")
    ax.set_xlabel(f"total points (of {max_points:g})")
    ax.set_ylabel("submissions")
    ax.yaxis.get_major_locator().set_params(integer=True)
    return _png(fig)


def mistake_counts(labels: list[str], counts: list[int]) -> str:
    """Horizontal bars: how often each named mistake was made, most frequent on top."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 0.9 + 0.32 * len(labels)), layout="constrained")
    ax = fig.add_subplot()
    y = list(range(len(labels)))
    ax.barh(y, counts, color="#c8553d")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("times made, across the class")
    ax.xaxis.get_major_locator().set_params(integer=True)
    return _png(fig)

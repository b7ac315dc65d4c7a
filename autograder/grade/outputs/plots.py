"""The class report's plots: matplotlib figures (no pyplot state), embedded as base64 PNGs.

No learner text reaches a plot: labels are the course's exercise and question names. Their words
are in the current language where a font can draw it: matplotlib's default font has no Chinese
glyphs, so a Chinese report's plots are in English unless a CJK font is installed (``make
cjk-font``, ``course_lib.fonts``), which then draws the Chinese characters.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import io

from autograder import i18n
from autograder.i18n import N_, _


@functools.cache
def cjk_font() -> str | None:
    """The installed CJK font family (``course_lib.fonts``), or None."""
    try:
        from course_lib.fonts import cjk_family

        return cjk_family()
    except Exception:  # no font is no reason to lose the report
        return None


def speaks() -> bool:
    """Whether the plots' words are in the current language: English, or a CJK font to draw
    Chinese with (else they stay English, never boxes)."""
    return i18n.language() == i18n.ENGLISH or cjk_font() is not None


def words(text: str) -> str:
    """``text`` (marked N_) as a plot shows it: see :func:`speaks`."""
    return _(text) if speaks() else text


def _with_font(plot):
    """``plot`` drawn with the CJK font as a fallback after matplotlib's default, where one is
    installed (Latin text is drawn as before)."""

    @functools.wraps(plot)
    def drawn(*args, **kwargs):
        from matplotlib import rc_context, rcParams

        family = cjk_font()
        font = contextlib.nullcontext()
        if family is not None:
            font = rc_context({"font.family": [*rcParams["font.family"], family]})
        with font:
            return plot(*args, **kwargs)

    return drawn


def _png(fig) -> str:
    """``data:image/png;base64,...`` for ``fig`` (deterministic: no software or date metadata)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


@_with_font
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
    ax.set_xlabel(words(N_("submissions passing (%)")))
    for i, r in enumerate(rates):
        ax.text(min(100 * r + 1, 88), i, f"{100 * r:.0f}%", va="center", fontsize=8)
    return _png(fig)


@_with_font
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
    ax.set_xlabel(words(N_("total points (of {points})")).format(points=f"{max_points:g}"))
    ax.set_ylabel(words(N_("submissions")))
    ax.yaxis.get_major_locator().set_params(integer=True)
    return _png(fig)


@_with_font
def mistake_counts(labels: list[str], counts: list[int]) -> str:
    """Horizontal bars: how often each named mistake was made, most frequent on top."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 0.9 + 0.32 * len(labels)), layout="constrained")
    ax = fig.add_subplot()
    y = list(range(len(labels)))
    ax.barh(y, counts, color="#c8553d")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(words(N_("times made, across the class")))
    ax.xaxis.get_major_locator().set_params(integer=True)
    return _png(fig)

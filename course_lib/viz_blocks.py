"""Lesson 08's pictures: the two block orders, attention maps per layer and head, a live plot.

* :func:`plot_block_orders`: Pre-LN and Post-LN drawn side by side as data-flow diagrams.
* :func:`plot_attention_grid`: one heatmap per (layer, head) of a model's attention weights.
* :class:`LivePlot`: curves that redraw in place while a training loop runs, within a CPU budget.
"""

from __future__ import annotations

import html
import io
import time
from collections.abc import Callable

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyBboxPatch

from course_lib.labels import N_, tr
from course_lib.viz_figures import use_matplotlib  # (its import teaches IPython a Figure)

use_matplotlib()  # a CJK fallback font for Chinese labels (see viz_figures)

# Each diagram is a column of boxes, bottom (input) to top (output); "+" is a residual sum.
_STEPS = {
    N_("Pre-LN (norm_first=True)"): [
        "x",
        N_("LayerNorm 1"),
        N_("Attention"),
        "+",
        N_("LayerNorm 2"),
        N_("FeedForward"),
        "+",
        N_("out"),
    ],
    N_("Post-LN (norm_first=False)"): [
        "x",
        N_("Attention"),
        "+",
        N_("LayerNorm 1"),
        N_("FeedForward"),
        "+",
        N_("LayerNorm 2"),
        N_("out"),
    ],
}
_COLOURS = {"LayerNorm": "#f6d8a8", "Attention": "#b7d3f2", "FeedForward": "#c8e6c0"}


def _draw_order(ax, title: str, steps: list[str]) -> None:
    ys = {i: i * 1.0 for i in range(len(steps))}
    x0 = 0.0
    residual_from = 0  # the index whose value the next "+" adds back
    for i, name in enumerate(steps):
        y = ys[i]
        if name == "+":
            ax.add_patch(Circle((x0, y), 0.22, fc="white", ec="black", lw=1.2, zorder=3))
            ax.text(x0, y, "+", ha="center", va="center", fontsize=13, zorder=4)
            # the skip connection: it leaves the main path just above where the last residual
            # started, runs around the sublayer on the right, and joins the sum here
            branch = ys[residual_from] + 0.5
            ax.plot([x0, 1.25, 1.25], [branch, branch, y], color="#c0392b", lw=1.5, zorder=2)
            ax.plot([x0], [branch], "o", color="#c0392b", ms=4, zorder=2)
            ax.annotate(
                "",
                xy=(x0 + 0.22, y),
                xytext=(1.25, y),
                arrowprops={"arrowstyle": "-|>", "color": "#c0392b", "lw": 1.5},
                zorder=2,
            )
            residual_from = i
        elif name in ("x", "out"):
            ax.text(x0, y, tr(name), ha="center", va="center", fontsize=12, fontweight="bold")
            if name == "x":
                residual_from = i
        else:
            colour = next(c for key, c in _COLOURS.items() if name.startswith(key))
            ax.add_patch(
                FancyBboxPatch(
                    (x0 - 0.9, y - 0.27),
                    1.8,
                    0.54,
                    boxstyle="round,pad=0.02",
                    fc=colour,
                    ec="black",
                    lw=1.0,
                    zorder=3,
                )
            )
            ax.text(x0, y, tr(name), ha="center", va="center", fontsize=10, zorder=4)
            if name.startswith("LayerNorm") and steps[i - 1] == "+":
                residual_from = i  # Post-LN: the normalised sum is the next residual's start
        if i > 0:  # the main path, from the previous step to this one
            gap_below = 0.22 if steps[i - 1] == "+" else 0.27
            gap_above = 0.22 if name == "+" else 0.27
            ax.annotate(
                "",
                xy=(x0, y - gap_above),
                xytext=(x0, ys[i - 1] + gap_below),
                arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.0},
                zorder=1,
            )
    ax.set_title(tr(title), fontsize=11)
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-0.6, len(steps) - 0.4)
    ax.set_aspect("equal")
    ax.axis("off")


def plot_block_orders():
    """Pre-LN and Post-LN side by side: boxes are sublayers, red lines the residual connections.

    Returns the figure.
    """
    fig = Figure(figsize=(8, 5.5))
    for ax, (title, steps) in zip(fig.subplots(1, 2), _STEPS.items(), strict=True):
        _draw_order(ax, title, steps)
    fig.suptitle(tr("The same sublayers in two orders (read bottom to top; red: residual)"))
    fig.tight_layout()
    return fig


def plot_attention_grid(
    weights: list[torch.Tensor],
    tokens: list[str] | None = None,
    title: str = "",
    queries: list[str] | None = None,
):
    """One heatmap per layer (rows) and head (columns).

    Args:
        weights: one ``(H, Lq, Lk)`` tensor per layer (a single example, no batch dim).
        tokens: labels of the keys (and of the queries, unless ``queries`` is given).

    Returns the figure (a notebook shows it when it is a cell's last value, or with display()).
    """
    layers, heads = len(weights), weights[0].shape[0]
    fig = Figure(figsize=(2.9 * heads, 2.9 * layers), layout="constrained")
    axes = fig.subplots(layers, heads, squeeze=False)
    queries = tokens if queries is None else queries
    for i, layer in enumerate(weights):
        for j in range(heads):
            ax = axes[i][j]
            ax.imshow(layer[j].detach().float().cpu().numpy(), cmap="viridis", vmin=0.0, vmax=1.0)
            ax.set_title(tr("layer {i}, head {j}", i=i, j=j), fontsize=9)
            if tokens is not None:
                ax.set_xticks(range(len(tokens)), tokens, fontsize=7)
                ax.set_yticks(range(len(queries)), queries, fontsize=7)
            else:
                ax.set_xticks([])
                ax.set_yticks([])
            ax.set_xlabel(tr("key"), fontsize=8)
            ax.set_ylabel(tr("query"), fontsize=8)
    if title:
        fig.suptitle(title)
    return fig


class LivePlot:
    """Curves that redraw in place while a loop runs (in Jupyter; elsewhere, once at the end).

    Usage::

        live = LivePlot(["loss", "exact match"])
        for step in ...:
            live.add(step, loss=..., **{"exact match": ...})  # any subset of the names
        live.close()

    Watching must not cost more than it shows: drawing a figure to a PNG takes a tenth of a
    second or more, longer than a training step of a small model. So the plot keeps to a CPU
    budget: it redraws (every ``every`` calls of :meth:`add`) only while its own CPU time
    (making the figure included) stays within ``budget`` times the CPU time the rest of the
    process used since the plot was made, and :meth:`close` always draws the final state.
    ``cpu_seconds`` says what it spent. ``clock`` measures CPU time (tests pass a fake).
    """

    def __init__(
        self,
        names: list[str],
        every: int = 1,
        title: str = "",
        budget: float = 0.15,
        clock: Callable[[], float] = time.process_time,
    ):
        from IPython.display import HTML, display

        self._clock = clock
        self._start = clock()
        self.names = list(names)
        self.every = every
        self.budget = budget
        self.data: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in names}
        self.fig = Figure(figsize=(3.6 * len(names), 2.8))
        axes = self.fig.subplots(1, len(names), squeeze=False)
        self.axes = dict(zip(names, axes[0], strict=True))
        self.lines = {n: ax.plot([], [], color="#1f77b4")[0] for n, ax in self.axes.items()}
        for name, ax in self.axes.items():
            ax.set_title(name, fontsize=10)
            ax.set_xlabel(tr("step"))
            ax.grid(alpha=0.3)
        if title:
            self.fig.suptitle(title)
        # fixed margins: tight_layout would cost as much as a drawing
        self.fig.subplots_adjust(left=0.06, right=0.98, bottom=0.18, top=0.8, wspace=0.3)
        self._last_cost = 0.0
        self._calls = self._drawn = 0
        waiting = tr(
            "{title}: the curves appear with the first point", title=title or tr("live plot")
        )
        self._handle = display(HTML(f"<i>{html.escape(waiting)}</i>"), display_id=True)
        # (outside IPython, display prints the object and returns None: nothing is drawn)
        self.cpu_seconds = clock() - self._start  # what watching cost so far: making the figure

    def add(self, step: float, **values: float) -> None:
        """Record ``values`` (keyword names from ``names``) at ``step``; redraw when it is the
        ``every``-th call and the budget allows."""
        for name, value in values.items():
            if name not in self.data:
                raise KeyError(f"{name!r} is not one of the curves {self.names}")
            xs, ys = self.data[name]
            xs.append(float(step))
            ys.append(float(value))
        self._calls += 1
        if self._calls % self.every == 0 and self._affordable():
            self.draw()

    def _affordable(self) -> bool:
        """Would one more drawing (as costly as the last) keep the plot within its budget?"""
        others = self._clock() - self._start - self.cpu_seconds
        return self.cpu_seconds + self._last_cost <= self.budget * others

    def draw(self) -> None:
        """Put the recorded points on the curves and show the figure (in IPython)."""
        start = self._clock()
        for name, ax in self.axes.items():
            self.lines[name].set_data(*(np.asarray(v) for v in self.data[name]))
            ax.relim()
            ax.autoscale_view()
        if self._handle is not None:
            from IPython.display import Image

            buf = io.BytesIO()
            self.fig.savefig(buf, format="png", dpi=72)
            self._handle.update(Image(data=buf.getvalue()))
        self._drawn = self._calls
        self._last_cost = self._clock() - start
        self.cpu_seconds += self._last_cost

    def close(self) -> None:
        """Draw the final state (unless the last drawing already shows it)."""
        if self._drawn != self._calls or self._calls == 0:
            self.draw()

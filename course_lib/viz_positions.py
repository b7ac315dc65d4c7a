"""Plots and a widget for lesson 07 (positions), drawn from the learner's own functions.

Like :mod:`course_lib.viz`, every plot returns a ``matplotlib.figure.Figure`` built without
pyplot, and the widget is an ``ipywidgets.VBox`` that draws into an ``ipywidgets.Image``, so all of
it works headless and can be tested without a browser.

* :func:`needs`: run a demo only once the exercise it uses is written.
* :func:`plot_encoding`: a positional-encoding table as a heatmap (positions x features).
* :func:`plot_offset_dots`: ``PE(p) · PE(p + k)`` against the offset ``k``, one curve per ``p``.
* :class:`RopeRotation`: one pair of features of a query and a key, rotated by RoPE.

Shape legend: P positions, D features (d_model or the head dim), I = D / 2 pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import ipywidgets as widgets
import torch
from matplotlib.figure import Figure

from course_lib.labels import N_, tr
from course_lib.viz_figures import _png, use_matplotlib

use_matplotlib()  # a CJK fallback font for Chinese labels (see viz_figures)

__all__ = ["plot_encoding", "plot_offset_dots", "RopeRotation"]


def plot_encoding(pe: torch.Tensor, title: str = N_("positional encoding")) -> Figure:
    """``pe (P, D)`` as a heatmap: one row per position, one column per feature."""
    table = pe.detach().to("cpu", torch.float32)  # (P, D)
    if table.ndim != 2:
        raise ValueError(f"expected a (positions, features) table, got shape {tuple(table.shape)}")
    fig = Figure(figsize=(7.0, 3.6))
    ax = fig.subplots()
    image = ax.imshow(table.numpy(), cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel(tr("feature (2i: sin, 2i+1: cos)"))
    ax.set_ylabel(tr("position p"))
    ax.set_title(tr(title), fontsize=10)
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    return fig


def plot_offset_dots(pe: torch.Tensor, starts: Sequence[int], max_offset: int) -> Figure:
    """``PE(p) · PE(p + k)`` for ``k = -p .. max_offset`` and each ``p`` in ``starts``.

    If the curves lie on top of each other, the dot product depends on the offset ``k`` only.
    """
    table = pe.detach().to("cpu", torch.float64)  # (P, D)
    fig = Figure(figsize=(7.0, 3.0))
    ax = fig.subplots()
    styles = ("-", "--", ":", "-.")  # curves that coincide stay visible on top of each other
    for n, p in enumerate(starts):
        if p + max_offset >= table.shape[0]:
            raise ValueError(f"p + max_offset = {p + max_offset} is past the table's end")
        offsets = torch.arange(-p, max_offset + 1)  # (K,)
        dots = table[p + offsets] @ table[p]  # (K, D) @ (D,) -> (K,)
        style = styles[n % len(styles)]
        ax.plot(offsets.numpy(), dots.numpy(), style, lw=2.4 - 0.5 * n, label=f"p = {p}")
    ax.set_xlabel(tr("offset k"))
    ax.set_ylabel("PE(p) · PE(p + k)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


class RopeRotation(widgets.VBox):
    """Sliders over the query's position, the key's offset and the pair shown.

    A fixed query ``q`` and key ``k`` (``D`` features) are rotated by the learner's
    ``apply_rope``: ``q`` at position ``p``, ``k`` at position ``p + offset``. The plot shows pair
    ``i`` of both, before (faint) and after rotation; the summary gives the angle and the full
    score ``q' · k'``, and compares it with the score at ``p = 0`` with the same offset.
    """

    def __init__(
        self,
        apply_rope: Callable[..., torch.Tensor],
        *,
        dim: int = 8,
        max_position: int = 40,
        seed: int = 0,
    ):
        self.apply_rope = apply_rope
        generator = torch.Generator().manual_seed(seed)
        self.q = torch.randn(dim, generator=generator)  # (D,)
        self.k = torch.randn(dim, generator=generator)  # (D,)
        self.position = widgets.IntSlider(0, 0, max_position, description=tr("q at p"))
        self.offset = widgets.IntSlider(3, -8, 8, description=tr("k at p +"))
        self.pair = widgets.IntSlider(0, 0, dim // 2 - 1, description=tr("pair i"))
        self.summary = widgets.HTML()
        self.image = widgets.Image(format="png")
        for slider in (self.position, self.offset, self.pair):
            slider.continuous_update = False
            slider.observe(self.update, names="value")
        super().__init__(
            [widgets.HBox([self.position, self.offset, self.pair]), self.summary, self.image]
        )
        self.update()

    def rotated(self, p: int, offset: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``q`` rotated to position ``p`` and ``k`` to ``p + offset``: two ``(D,)`` tensors."""
        positions = torch.tensor([p, p + offset])  # (2,)
        both = self.apply_rope(torch.stack([self.q, self.k]), positions=positions)  # (2, D)
        return both[0], both[1]

    def score(self, p: int, offset: int) -> float:
        q, k = self.rotated(p, offset)
        return float(q @ k)

    def update(self, change=None) -> None:
        p, offset, i = self.position.value, self.offset.value, self.pair.value
        if p + offset < 0:
            offset = -p  # a key before position 0 does not exist
        q, k = self.rotated(p, offset)
        here, at_zero = float(q @ k), self.score(max(0, -offset), offset)
        same = math.isclose(here, at_zero, rel_tol=1e-4, abs_tol=1e-4)
        angle = p * 10000.0 ** (-2 * i / self.q.numel())
        self.summary.value = tr(
            "pair {i} of q turned by p·θ<sub>{i}</sub> = {angle:.3f} rad; score q'·k' = "
            "<b>{here:.4f}</b>; same offset, q at {start}: {at_start:.4f} ({verdict})",
            i=i,
            angle=angle,
            here=here,
            start=max(0, -offset),
            at_start=at_zero,
            verdict=tr("equal") if same else tr("DIFFERENT"),
        )
        self.figure = self._draw(q, k, i, p, offset)
        self.image.value = _png(self.figure)

    def _draw(self, q: torch.Tensor, k: torch.Tensor, i: int, p: int, offset: int) -> Figure:
        fig = Figure(figsize=(3.6, 3.6))
        ax = fig.subplots()
        shown = torch.cat([self.q, self.k, q, k]).detach().double()  # original and rotated
        reach = 1.2 * float(shown.abs().max()) * math.sqrt(2)  # every arrow fits
        for vec, new, colour, name in ((self.q, q, "tab:blue", "q"), (self.k, k, "tab:red", "k")):
            x0, y0 = float(vec[2 * i]), float(vec[2 * i + 1])
            x1, y1 = float(new[2 * i]), float(new[2 * i + 1])
            ax.annotate(
                "",
                (x0, y0),
                (0, 0),
                arrowprops={"arrowstyle": "->", "color": colour, "alpha": 0.25},
            )
            ax.annotate("", (x1, y1), (0, 0), arrowprops={"arrowstyle": "->", "color": colour})
            where = p if name == "q" else p + offset
            ax.text(
                x1, y1, tr(" {name} at {where}", name=name, where=where), color=colour, fontsize=8
            )
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach, reach)
        ax.set_aspect("equal")
        ax.axhline(0, color="grey", lw=0.5)
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_xlabel(tr("feature {n}", n=2 * i))
        ax.set_ylabel(tr("feature {n}", n=2 * i + 1))
        ax.set_title(tr("pair {i}: faint = before rotation", i=i), fontsize=9)
        fig.tight_layout()
        return fig

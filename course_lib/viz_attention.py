"""Lesson 05's plots and widget: how far attention reaches, and what its maps look like.

Like :mod:`course_lib.viz`, every figure is built without pyplot and the widget draws into an
``ipywidgets.Image``, so all of it works headless. The learner's own ``SelfAttention`` is passed
in, so the maps shown are those of *their* code.

Shape legend: L sequence length, M d_model, K d_k.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure

from course_lib.labels import tr
from course_lib.viz_figures import _heatmap, _png, use_matplotlib

use_matplotlib()  # a CJK fallback font for Chinese labels (see viz_figures)

__all__ = ["AttentionMapExplorer", "map_statistics", "plot_reach"]


def plot_reach(reach: Mapping[str, Sequence[float]], *, title: str | None = None) -> Figure:
    """How strongly the last output depends on each input position, one line per model.

    ``reach[name][j]`` is the size of the gradient of the last position's output with respect to
    input ``j`` (0 where it does not depend on it); a log scale shows exponential decay as a
    straight line.
    """
    fig = Figure(figsize=(7.0, 3.0))
    ax = fig.add_subplot()
    for name, values in reach.items():
        a = np.asarray([float(v) for v in values])
        shown = np.where(a > 0, a, np.nan)  # log scale: exact zeros (no dependence) are not drawn
        ax.semilogy(range(len(a)), shown, "o-", ms=3, label=name)
    ax.set_xlabel(tr("input position j (the output is at the last position)"))
    ax.set_ylabel(tr("|∂ output / ∂ x_j|"))
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def map_statistics(weights: torch.Tensor) -> dict[str, float]:
    """Three numbers that tell the usual attention maps apart, for ``weights (..., L, L)``.

    ``entropy``: mean entropy of a row, in nats (``log L`` for uniform rows, 0 for one-hot ones);
    ``max_weight``: the mean of each row's largest weight (``1/L`` uniform, 1 one-hot);
    ``diagonal``: the fraction of rows whose largest weight is on the diagonal (self).
    """
    w = weights.detach().double()
    entropy = -(torch.where(w > 0, w * w.log(), 0.0)).sum(-1)  # (..., L), 0 log 0 = 0
    on_diagonal = w.argmax(-1) == torch.arange(w.size(-1))  # (..., L)
    return {
        "entropy": float(entropy.mean()),
        "max_weight": float(w.amax(-1).mean()),
        "diagonal": float(on_diagonal.double().mean()),
    }


class AttentionMapExplorer(widgets.VBox):
    """The attention map of the learner's ``SelfAttention`` on a sentence, as its weights change.

    The projections start from ``N(0, 1/d_model)`` weights, so that ``q`` and ``k`` have entries
    of variance about 1 for unit-variance ``x``; the slider multiplies ``W_Q`` and ``W_K`` by a
    scale (scores grow like its square, as with a lower softmax temperature), and the checkbox
    ties ``W_K`` to ``W_Q``. Small scales give uniform maps, large ones one-hot maps, and tied
    weights a map whose diagonal dominates.
    """

    def __init__(
        self,
        self_attention_class: Callable[..., torch.nn.Module],
        words: Sequence[str],
        x: torch.Tensor,
        *,
        d_k: int = 8,
        seed: int = 0,
        scales: Sequence[float] = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0),
    ):
        self.words = list(words)
        self.x = x.detach()  # (L, M)
        d_model = x.size(-1)
        self.module = self_attention_class(d_model, d_k, d_model)
        g = torch.Generator().manual_seed(seed)
        self._weights = {  # the unscaled weights, reused as the controls move
            n: torch.randn(d, d_model, generator=g) / math.sqrt(d_model)
            for n, d in (("q", d_k), ("k", d_k), ("v", d_model))
        }
        self.scale = widgets.SelectionSlider(
            options=[float(s) for s in scales],
            value=1.0 if 1.0 in scales else float(scales[0]),
            description="W_Q, W_K ×",
            continuous_update=False,
        )
        self.tied = widgets.Checkbox(value=False, description="W_K = W_Q")
        self.summary = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.scale.observe(self.update, names="value")
        self.tied.observe(self.update, names="value")
        super().__init__([widgets.HBox([self.scale, self.tied]), self.summary, self.image])
        self.update()

    def attention_weights(self, scale: float, tied: bool) -> torch.Tensor:
        """The ``(L, L)`` weights the learner's module computes with these settings."""
        w_q = self._weights["q"] * scale
        w_k = w_q if tied else self._weights["k"] * scale
        with torch.no_grad():
            self.module.w_q.weight.copy_(w_q)
            self.module.w_k.weight.copy_(w_k)
            self.module.w_v.weight.copy_(self._weights["v"])
            _, weights = self.module(self.x)  # (L, L)
        return weights

    def update(self, change=None) -> None:
        weights = self.attention_weights(self.scale.value, self.tied.value)
        stats = map_statistics(weights)
        L = len(self.words)
        self.summary.value = tr(
            "mean entropy <b>{entropy:.2f}</b> nats (uniform: {uniform_entropy:.2f}), "
            "largest weight {largest:.2f} on average (uniform: {uniform_weight:.2f}), "
            "rows whose largest weight is on the diagonal: <b>{diagonal:.0%}</b>",
            entropy=stats["entropy"],
            uniform_entropy=math.log(L),
            largest=stats["max_weight"],
            uniform_weight=1 / L,
            diagonal=stats["diagonal"],
        )
        fig = Figure(figsize=(5.2, 4.0))
        ax = fig.add_subplot()
        image = _heatmap(
            ax,
            weights.numpy(),
            self.words,
            self.words,
            cmap="viridis",
            annotate=True,
            vmin=0,
            vmax=1,
        )
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        ax.set_xlabel(tr("key"))
        ax.set_ylabel(tr("query"))
        tied = tr(", W_K = W_Q") if self.tied.value else ""
        title = tr(
            "your SelfAttention, W_Q and W_K × {scale:g}{tied}", scale=self.scale.value, tied=tied
        )
        ax.set_title(title, fontsize=10)
        fig.tight_layout()
        self.figure = fig
        self.image.value = _png(fig)

"""Lesson 03's pictures: the variance of q·k against d_k, and how scaling keeps softmax from
saturating (``SaturationExplorer``).

Shape legend: T queries (Lq), S keys (Lk), K key/query dim (d_k).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import ipywidgets as widgets
import torch

from course_lib.labels import tr
from course_lib.viz_figures import _png, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def plot_variance_vs_dk(
    dot_product_variance: Callable[..., float],
    dims: Sequence[int] = _DIMS,
    *,
    num_samples: int = 10_000,
    seed: int = 0,
) -> Figure:
    """The learner's ``dot_product_variance(d_k, num_samples, generator)`` against ``d_k``.

    Left: the raw variance, on log-log axes, next to the line ``Var = d_k``. Right: the variance
    after dividing by ``sqrt(d_k)`` (i.e. the measured variance ``/ d_k``), next to the line 1.
    """
    dims = [int(d) for d in dims]
    measured = []
    for d in dims:
        generator = torch.Generator().manual_seed(seed + d)
        measured.append(
            float(dot_product_variance(d, num_samples=num_samples, generator=generator))
        )
    fig = new_figure(figsize=(8.0, 3.2))
    left, right = fig.subplots(1, 2)
    left.loglog(dims, dims, "--", color="grey", label=tr("$d_k$ (theory)"))
    left.loglog(dims, measured, "o-", label=tr("yours: Var$(q\\cdot k)$"))
    left.set_xlabel("$d_k$")
    left.set_ylabel(tr("variance"))
    left.set_title(tr("unscaled: variance grows like $d_k$"), fontsize=10)
    left.legend(fontsize=8)
    scaled = [v / d for v, d in zip(measured, dims, strict=True)]
    right.semilogx(dims, [1.0] * len(dims), "--", color="grey", label=tr("1 (theory)"))
    right.semilogx(dims, scaled, "o-", color="tab:green", label=tr("yours / $d_k$"))
    right.set_ylim(0, 2)
    right.set_xlabel("$d_k$")
    right.set_title(tr("scaled by $1/\\sqrt{d_k}$: variance stays 1"), fontsize=10)
    right.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _softmax_jacobian_norm(p: torch.Tensor) -> torch.Tensor:
    """Frobenius norm of d softmax / d scores = diag(p) - p p^T, per row of ``p`` (..., S)."""
    jac = torch.diag_embed(p) - p[..., :, None] * p[..., None, :]  # (..., S, S)
    return jac.flatten(-2).norm(dim=-1)  # (...)


class SaturationExplorer(widgets.VBox):
    """A slider over ``d_k``, with and without the ``1/sqrt(d_k)`` scaling.

    For random queries and keys with unit-variance entries, it shows the attention weights of one
    query over ``num_keys`` keys (left) and, for every ``d_k``, the average entropy measured by
    the learner's ``softmax_entropy`` (right): unscaled, the weights collapse onto one key, the
    entropy falls towards 0 and so does the gradient that flows back through softmax.
    """

    def __init__(
        self,
        softmax_entropy: Callable[[torch.Tensor], torch.Tensor],
        *,
        num_keys: int = 8,
        num_queries: int = 256,
        dims: Sequence[int] = _DIMS,
        seed: int = 0,
    ):
        self.softmax_entropy = softmax_entropy
        self.num_keys = num_keys
        self.dims = [int(d) for d in dims]
        generator = torch.Generator().manual_seed(seed)
        # One draw per d_k, reused as the slider moves, so the picture changes only with d_k.
        self._scores = {}  # d_k -> unscaled scores (num_queries, num_keys)
        for d in self.dims:
            q = torch.randn(num_queries, d, generator=generator)  # (T, K)
            k = torch.randn(num_keys, d, generator=generator)  # (S, K)
            self._scores[d] = q @ k.T  # (T, K) @ (K, S) -> (T, S)
        self._curves = {scaled: self._entropy_curve(scaled) for scaled in (False, True)}

        self.d_k = widgets.SelectionSlider(
            options=self.dims,
            value=self.dims[len(self.dims) // 2],
            description="d_k",
            continuous_update=False,
        )
        self.scaled = widgets.Checkbox(value=False, description=tr("divide by √d_k"))
        self.summary = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.d_k.observe(self.update, names="value")
        self.scaled.observe(self.update, names="value")
        super().__init__([widgets.HBox([self.d_k, self.scaled]), self.summary, self.image])
        self.update()

    def _weights(self, d: int, scaled: bool) -> torch.Tensor:
        scores = self._scores[d] / math.sqrt(d) if scaled else self._scores[d]  # (T, S)
        return torch.softmax(scores, dim=-1)  # (T, S)

    def _entropy_curve(self, scaled: bool) -> list[float]:
        return [float(self.softmax_entropy(self._weights(d, scaled)).mean()) for d in self.dims]

    def update(self, change=None) -> None:
        d, scaled = self.d_k.value, self.scaled.value
        weights = self._weights(d, scaled)  # (T, S)
        entropy = float(self.softmax_entropy(weights).mean())
        grad = float(_softmax_jacobian_norm(weights).mean())
        self.summary.value = tr(
            "d_k = {d}, {state}: mean entropy <b>{entropy:.3f}</b> nats (uniform: {uniform:.3f}), "
            "largest weight {largest:.2f} on average, softmax gradient size <b>{grad:.3f}</b>",
            d=d,
            state=tr("scaled") if scaled else tr("unscaled"),
            entropy=entropy,
            uniform=math.log(self.num_keys),
            largest=float(weights.max(-1).values.mean()),
            grad=grad,
        )
        self.figure = self._draw(weights[0], d, scaled)
        self.image.value = _png(self.figure)

    def _draw(self, row: torch.Tensor, d: int, scaled: bool) -> Figure:
        fig = new_figure(figsize=(8.0, 2.8))
        left, right = fig.subplots(1, 2)
        left.bar(range(self.num_keys), row.numpy(), color="tab:blue")
        left.axhline(1 / self.num_keys, ls="--", color="grey", lw=1)
        left.set_ylim(0, 1)
        left.set_xlabel(tr("key"))
        left.set_ylabel(tr("weight"))
        left.set_title(tr("one query's weights (d_k = {d})", d=d), fontsize=10)
        for flag, style, label in ((False, "o-", tr("unscaled")), (True, "s-", "÷√d_k")):
            right.semilogx(self.dims, self._curves[flag], style, label=label, ms=4)
        right.axhline(math.log(self.num_keys), ls="--", color="grey", lw=1, label=tr("uniform"))
        right.plot([d], [self._curves[scaled][self.dims.index(d)]], "o", ms=10, mfc="none", c="red")
        right.set_xlabel("$d_k$")
        right.set_ylabel(tr("entropy (nats)"))
        right.set_title(tr("your softmax_entropy, averaged"), fontsize=10)
        right.legend(fontsize=7)
        fig.tight_layout()
        return fig

"""Lesson 06's pictures: one attention map per head, and what the number of heads changes.

Like :mod:`course_lib.viz`, every figure is built without pyplot and every widget is an
``ipywidgets.VBox`` that draws into an ``ipywidgets.Image``, so all of it runs headless. The
learner's own ``MultiHeadAttention`` and ``mha_num_parameters`` are passed in, so the pictures are
of their code.

Shape legend: H heads, T queries (Lq), S keys (Lk), M d_model, D d_head.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from course_lib.labels import tr
from course_lib.viz_figures import _heatmap, _png, _to_numpy, use_matplotlib

use_matplotlib()  # a CJK fallback font for Chinese labels (see viz_figures)

__all__ = ["plot_heads", "HeadView", "HeadCountExplorer"]


def plot_heads(
    weights,
    words: Sequence[str] | None = None,
    *,
    title: str | None = None,
    query: int | None = None,
) -> Figure:
    """One attention map per head, side by side: ``weights (H, T, S)`` of one sequence.

    ``query`` outlines that query's row in every map.
    """
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().to("cpu", torch.float32)
    maps = [_to_numpy(w) for w in weights]  # H maps of (T, S)
    vmax = max(float(m.max()) for m in maps) or 1.0  # one colour scale for all heads
    h = len(maps)
    columns = min(h, 4)
    rows = -(-h // columns)
    size = 0.28 * max(maps[0].shape) + 0.9
    fig = Figure(figsize=(min(columns * size + 0.6, 12.0), rows * size + 0.5))
    axes = np.atleast_1d(fig.subplots(rows, columns, squeeze=False)).ravel()
    for i, ax in enumerate(axes):
        if i >= h:
            ax.set_axis_off()
            continue
        first_col = i % columns == 0
        image = _heatmap(
            ax,
            maps[i],
            words if first_col else None,
            words,
            cmap="viridis",
            annotate=False,
            vmin=0.0,
            vmax=vmax,
        )
        if not first_col:
            ax.set_yticks([])
        ax.tick_params(labelsize=7)
        if query is not None:
            s = maps[i].shape[1]
            ax.add_patch(Rectangle((-0.5, query - 0.5), s, 1.0, fill=False, ec="red", lw=1.5))
        ax.set_title(tr("head {i}", i=i), fontsize=9)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.colorbar(image, ax=list(axes[:h]), fraction=0.03, pad=0.02, label=tr("weight"))
    return fig


def _head_weights(module, x: torch.Tensor, mask=None) -> torch.Tensor:
    """The per-head weights ``(H, T, T)`` of ``module`` on one sequence ``x (T, M)``."""
    with torch.no_grad():
        _, weights = module(x[None], mask=mask)  # (1, T, M) -> (1, H, T, T)
    return weights[0]


class HeadView(widgets.VBox):
    """A head view of the learner's module on one sentence: pick a query word, see every head.

    The top picture holds one map per head; the bars below show, head by head, where the picked
    query word looks. Heads with different patterns are heads that attend to different things.
    """

    def __init__(self, module, words: Sequence[str], x: torch.Tensor, mask=None):
        self.words = list(words)
        self.weights = _head_weights(module, x, mask)  # (H, T, T)
        self.query = widgets.Dropdown(
            options=[(f"{i}: {w}", i) for i, w in enumerate(self.words)],
            value=min(7, len(self.words) - 1),
            description=tr("query"),
        )
        self.image = widgets.Image(format="png")
        self.query.observe(self.update, names="value")
        super().__init__([self.query, self.image])
        self.update()

    def update(self, change=None) -> None:
        self.figure = self._draw(self.query.value)
        self.image.value = _png(self.figure)

    def _draw(self, query: int) -> Figure:
        h, _, s = self.weights.shape
        vmax = float(self.weights.max()) or 1.0  # one colour scale for all heads
        fig = Figure(figsize=(min(2.6 * h + 0.6, 12.0), 4.6))
        grid = fig.add_gridspec(2, h, height_ratios=[3, 1.4])
        for i in range(h):
            ax = fig.add_subplot(grid[0, i])
            _heatmap(
                ax,
                _to_numpy(self.weights[i]),
                self.words if i == 0 else None,
                self.words,
                cmap="viridis",
                annotate=False,
                vmin=0.0,
                vmax=vmax,
            )
            if i:
                ax.set_yticks([])
            ax.add_patch(Rectangle((-0.5, query - 0.5), s, 1.0, fill=False, ec="red"))
            ax.tick_params(labelsize=7)
            ax.set_title(tr("head {i}", i=i), fontsize=9)
            bars = fig.add_subplot(grid[1, i])
            bars.bar(range(s), self.weights[i, query].numpy(), color=f"C{i % 10}")
            bars.set_ylim(0, vmax)
            bars.set_xticks(range(s), labels=self.words, rotation=90, fontsize=7)
            if i:
                bars.set_yticks([])
        fig.suptitle(
            tr(
                "where '{word}' looks, head by head (colours: 0 to {vmax:.2f})",
                word=self.words[query],
                vmax=vmax,
            ),
            fontsize=10,
        )
        fig.tight_layout()
        return fig


def _divisors(n: int) -> list[int]:
    return [h for h in range(1, n + 1) if n % h == 0]


class HeadCountExplorer(widgets.VBox):
    """A slider over the number of heads ``h`` for a fixed ``d_model``.

    For each ``h`` it shows ``d_head = d_model / h``, the parameter count given by the learner's
    ``mha_num_parameters`` and counted on their ``MultiHeadAttention``, next to what "h times a
    single head" would be, and the ``h`` attention maps of a fresh (untrained) module on the toy
    sentence.
    """

    def __init__(
        self,
        multi_head_attention: Callable[..., torch.nn.Module],
        mha_num_parameters: Callable[..., int],
        words: Sequence[str],
        x: torch.Tensor,
        *,
        max_heads: int = 8,
        seed: int = 0,
    ):
        self.make, self.count = multi_head_attention, mha_num_parameters
        self.words, self.x, self.seed = list(words), x, seed
        self.d_model = x.shape[-1]
        options = [h for h in _divisors(self.d_model) if h <= max_heads]
        self.heads = widgets.SelectionSlider(
            options=options, value=options[min(1, len(options) - 1)], description=tr("heads h")
        )
        self.bias = widgets.Checkbox(value=False, description="bias=True")
        self.summary = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.heads.observe(self.update, names="value")
        self.bias.observe(self.update, names="value")
        super().__init__([widgets.HBox([self.heads, self.bias]), self.summary, self.image])
        self.update()

    def numbers(self, h: int, bias: bool) -> dict[str, int]:
        """d_head, the learner's count, the module's count, and "h times a single head"."""
        torch.manual_seed(self.seed)
        module = self.make(self.d_model, h, bias=bias)
        counted = sum(p.numel() for p in module.parameters())
        return {
            "d_head": self.d_model // h,
            "formula": int(self.count(self.d_model, h, bias=bias)),
            "counted": counted,
            "h_times_one_head": h * int(self.count(self.d_model, 1, bias=bias)),
        }

    def update(self, change=None) -> None:
        h, bias = self.heads.value, self.bias.value
        n = self.numbers(h, bias)
        self.summary.value = tr(
            "d_model = {d_model}, h = {h}: d_head = d_model / h = <b>{d_head}</b>; "
            "parameters: your mha_num_parameters says <b>{formula:,}</b>, your module "
            "holds <b>{counted:,}</b>; 'h times one head' would be {h_times_one_head:,}",
            d_model=self.d_model,
            h=h,
            **n,
        )
        torch.manual_seed(self.seed)
        module = self.make(self.d_model, h, bias=bias)
        self.figure = plot_heads(
            _head_weights(module, self.x),
            self.words,
            title=tr("{h} head(s) of d_head = {d_head}, untrained", h=h, d_head=n["d_head"]),
        )
        self.image.value = _png(self.figure)

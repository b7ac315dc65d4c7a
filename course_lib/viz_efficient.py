"""Pictures for lesson 09 (efficient attention): attention patterns and the tiled block loop.

Like :mod:`course_lib.viz`, every plot returns a ``matplotlib.figure.Figure`` built without
pyplot, so it works headless; a notebook shows it with ``display(fig)``.

* :func:`plot_masks`: one panel per bool mask (True = may attend), with how many pairs it scores.
* :func:`plot_block_loop`: the loop of tiled attention, in which one block of scores exists at a
  time.

Shape legend: L sequence length.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from course_lib.labels import tr
from course_lib.viz_figures import use_matplotlib  # (its import teaches IPython a Figure)

use_matplotlib()  # a CJK fallback font for Chinese labels (see viz_figures)

__all__ = ["plot_block_loop", "plot_masks"]


def plot_masks(masks: Mapping[str, torch.Tensor]) -> Figure:
    """One panel per ``(L, L)`` bool mask, dark where True (may attend), titled with its name and
    how many of its pairs are True."""
    if not masks:
        raise ValueError("plot_masks needs at least one mask, as {title: bool (L, L) tensor}")
    fig = Figure(figsize=(3.2 * len(masks), 3.4), layout="constrained")
    axes = fig.subplots(1, len(masks), squeeze=False)[0]
    for ax, (title, mask) in zip(axes, masks.items(), strict=True):
        if mask.dim() != 2 or mask.dtype != torch.bool:
            raise ValueError(
                f"{title!r}: expected a bool (L, L) mask, got {mask.dtype} {tuple(mask.shape)}"
            )
        ax.imshow(mask.float().cpu().numpy(), cmap="Greys", vmin=0, vmax=1)
        pairs = tr(
            "{title}\n{count} of {total} pairs",
            title=title,
            count=int(mask.sum()),
            total=mask.numel(),
        )
        ax.set_title(pairs, fontsize=9)
        ax.set_xlabel(tr("key j"))
        ax.set_ylabel(tr("query i"))
    return fig


def plot_block_loop(num_query_blocks: int = 4, num_key_blocks: int = 6) -> Figure:
    """Three steps of tiled attention's loop over key blocks (the first two and the last).

    At step ``s`` the running state ``m, l, acc`` (blue, left) has absorbed key blocks before
    ``s`` (grey); the scores of block ``s`` (orange) are the only ones in memory. One tile of the
    stripe is outlined: FlashAttention on a GPU also splits the queries into tiles.
    """
    if num_query_blocks < 2 or num_key_blocks < 3:
        raise ValueError("draw at least 2 query blocks and 3 key blocks")
    fig = Figure(figsize=(11, 3.2), layout="constrained")
    steps = [0, 1, num_key_blocks - 1]
    for step, ax in zip(steps, fig.subplots(1, 3), strict=True):
        for i in range(num_query_blocks):
            for j in range(num_key_blocks):
                color = "tab:orange" if j == step else ("0.85" if j < step else "white")
                ax.add_patch(Rectangle((j + 1.5, i), 1, 1, facecolor=color, edgecolor="0.4"))
                if j == step and i == 1:  # one query tile of the stripe
                    ax.add_patch(Rectangle((j + 1.5, i), 1, 1, fill=False, edgecolor="k", lw=2.5))
            ax.add_patch(
                Rectangle((0, i), 0.9, 1, facecolor="tab:blue", alpha=0.35, edgecolor="0.4")
            )
        ax.text(0.45, -0.35, "m, l, acc", ha="center", fontsize=8)
        ax.text(
            1.5 + step + 0.5, -0.35, tr("K, V block {step}", step=step), ha="center", fontsize=8
        )
        ax.set_xlim(-0.1, num_key_blocks + 1.6)
        ax.set_ylim(num_query_blocks + 0.1, -0.7)
        ax.set_title(tr("step {step}: scores of key block {step} only", step=step), fontsize=9)
        ax.axis("off")
    fig.suptitle(
        tr("grey: folded into the running state; orange: the only scores in memory"), fontsize=9
    )
    return fig

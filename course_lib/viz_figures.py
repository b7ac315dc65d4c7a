"""Matrices as heatmaps, and the figure helpers every plot and widget uses.

Figures are built without pyplot (``matplotlib.figure.Figure``), so nothing leaks between cells
and it works headless; importing this module teaches IPython to show a ``Figure`` as a PNG, and
adds an installed CJK font as a fallback for Chinese labels (``course_lib.fonts``).

Shape legend: T queries (Lq), S keys (Lk).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from course_lib.fonts import use_cjk_fallback
from course_lib.labels import tr

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _to_numpy(t) -> np.ndarray:
    """A 2-D float array from a tensor, array or nested list (detached, on the CPU)."""
    if isinstance(t, torch.Tensor):
        t = t.detach().to("cpu", torch.float32).numpy()
    a = np.asarray(t, dtype=np.float32)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError(
            f"expected a 2-D matrix (queries x keys), got shape {tuple(a.shape)}; "
            "pick one batch element / head first, e.g. weights[0] or weights[0, 0]"
        )
    return a


def _png(fig: Figure, dpi: int = 80) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def _display_figures_in_ipython() -> None:
    """Let IPython show a ``Figure`` as a PNG even when pyplot was never imported.

    IPython learns to display figures only when pyplot activates the inline backend; figures
    built directly, as here, would otherwise show as ``<Figure size ...>``.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        png = shell.display_formatter.formatters["image/png"]
        show = lambda fig: _png(fig, dpi=90)  # noqa: E731
        if "matplotlib.figure" in sys.modules:
            png.for_type(sys.modules["matplotlib.figure"].Figure, show)
        else:  # matplotlib is not loaded yet: IPython finds the class by its name when it is
            png.for_type_by_name("matplotlib.figure", "Figure", show)


_display_figures_in_ipython()
_set_up: list[bool] = []


def use_matplotlib() -> None:
    """Load matplotlib, once per process, with a CJK font as a fallback for Chinese labels (the
    zh-CN edition; see ``course_lib.fonts``). The plots of this module and ``viz_scaling`` call
    it when they draw their first figure, so that a lesson's import cell need not wait for
    matplotlib; the later lessons' plot modules call it when they are imported."""
    if not _set_up:
        _set_up.append(True)
        use_cjk_fallback()


def new_figure(*args, **kwargs) -> Figure:
    """``matplotlib.figure.Figure(...)``, matplotlib set up first (:func:`use_matplotlib`)."""
    use_matplotlib()
    from matplotlib.figure import Figure

    return Figure(*args, **kwargs)


def _heatmap(
    ax,
    a: np.ndarray,
    row_labels: Sequence[str] | None,
    col_labels: Sequence[str] | None,
    *,
    cmap: str,
    annotate: bool,
    vmin: float | None = None,
    vmax: float | None = None,
    blocked: np.ndarray | None = None,
):
    import matplotlib

    shown = np.ma.masked_invalid(a)  # -inf / NaN cells are drawn in the "bad" colour
    if blocked is not None:
        shown = np.ma.masked_where(blocked, shown)  # blocked pairs are greyed out too
    colours = matplotlib.colormaps[cmap].with_extremes(bad="#d9d9d9")  # blocked / -inf: grey
    image = ax.imshow(shown, cmap=colours, vmin=vmin, vmax=vmax, aspect="auto")
    rows, cols = a.shape
    if row_labels is not None:
        ax.set_yticks(range(rows), labels=list(row_labels))
    if col_labels is not None:
        ax.set_xticks(range(cols), labels=list(col_labels), rotation=45, ha="right")
    if annotate:
        finite = a[np.isfinite(a)]
        mid = (finite.max() + finite.min()) / 2 if finite.size else 0.0
        for i in range(rows):
            for j in range(cols):
                value = a[i, j]
                if blocked is not None and blocked[i, j]:
                    text = "×"
                elif not np.isfinite(value):
                    text = "-inf" if value < 0 else ("inf" if value > 0 else "nan")
                else:
                    text = f"{value:.2f}"
                if blocked is not None and blocked[i, j]:
                    color = "dimgray"
                else:
                    color = "white" if np.isfinite(value) and value < mid else "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color=color)
    return image


def plot_attention(
    matrix,
    query_labels: Sequence[str] | None = None,
    key_labels: Sequence[str] | None = None,
    *,
    title: str | None = None,
    mask=None,
    annotate: bool | None = None,
    cmap: str = "viridis",
) -> Figure:
    """Heatmap of attention scores or weights: rows are queries, columns are keys.

    Args:
        matrix: ``(T, S)`` scores or weights (tensor, array or list); pick one batch element and
            head first.
        query_labels, key_labels: the tokens, ``T`` and ``S`` of them.
        mask: optional bool ``(T, S)`` (True = may attend); blocked cells are greyed out and
            marked with ×. (To draw a mask itself, pass it as ``matrix``: True cells are lit.)
        annotate: write the value in each cell (default: when the matrix is at most 12 x 12).
    """
    is_mask = isinstance(matrix, torch.Tensor) and matrix.dtype == torch.bool
    a = _to_numpy(matrix)
    blocked = None
    if mask is not None:
        m = mask.detach().cpu().numpy() if isinstance(mask, torch.Tensor) else np.asarray(mask)
        blocked = ~np.broadcast_to(m.astype(bool), a.shape)
    if annotate is None:
        annotate = max(a.shape) <= 12 and not is_mask
    if is_mask:  # a bool mask: lit = may attend, no colour bar needed
        cmap = "Blues"
    rows, cols = a.shape
    fig = new_figure(figsize=(min(1.0 + 0.55 * cols, 7.0), min(0.8 + 0.45 * rows, 6.0)))
    ax = fig.add_subplot()
    image = _heatmap(ax, a, query_labels, key_labels, cmap=cmap, annotate=annotate, blocked=blocked)
    if not is_mask:
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xlabel(tr("key"))
    ax.set_ylabel(tr("query"))
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_matrices(
    matrices: Mapping[str, object],
    row_labels: Sequence[str] | None = None,
    *,
    title: str | None = None,
    cmap: str = "coolwarm",
) -> Figure:
    """Several matrices side by side, each titled with its name and shape.

    Used to see shapes at work: ``plot_matrices({"X": x, "W_Q": w_q, "Q": q}, tokens)``. Rows of a
    matrix that has as many rows as there are ``row_labels`` are labelled with them.
    """
    arrays = {name: _to_numpy(m) for name, m in matrices.items()}
    if not arrays:
        raise ValueError("give at least one matrix, e.g. {'Q': q}")
    widths = [max(a.shape[1], 1) for a in arrays.values()]
    tallest = max(a.shape[0] for a in arrays.values())
    fig = new_figure(
        figsize=(min(1.2 + 0.35 * sum(widths) + 0.6 * len(arrays), 11.0), 0.9 + 0.32 * tallest)
    )
    axes = fig.subplots(1, len(arrays), gridspec_kw={"width_ratios": widths}, squeeze=False)[0]
    for ax, (name, a) in zip(axes, arrays.items(), strict=True):
        labels = row_labels if row_labels is not None and len(row_labels) == a.shape[0] else None
        limit = float(np.abs(a).max()) or 1.0  # each matrix on its own scale, 0 is white
        _heatmap(ax, a, labels, None, cmap=cmap, annotate=False, vmin=-limit, vmax=limit)
        ax.set_title(f"{name}  {tuple(a.shape)}", fontsize=9)
        ax.set_xticks([])
        if labels is None:
            ax.set_yticks([])
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig

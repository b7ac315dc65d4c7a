"""Plots and widgets the lessons use to show an idea working on the learner's own code.

Every plot returns a ``matplotlib.figure.Figure`` built without pyplot, so nothing leaks between
cells and it works headless (Agg): in a notebook, a figure as the last expression of a cell is
shown once. Every widget is an ``ipywidgets.VBox`` subclass that draws its figure into an
``ipywidgets.Image`` (PNG bytes), so it can be built, driven and tested without a browser.

The functions the learner wrote are passed in (``plot_variance_vs_dk(dot_product_variance)``), so
the picture is of *their* code; where a widget needs a piece the learner has not built yet, it
uses ``torch.softmax``.

Shape legend: T queries (Lq), S keys (Lk), K key/query dim (d_k).
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable, Iterator, Mapping, Sequence

import ipywidgets as widgets
import matplotlib
import numpy as np
import torch
from matplotlib.figure import Figure

__all__ = [
    "needs",
    "plot_attention",
    "plot_matrices",
    "plot_variance_vs_dk",
    "SaturationExplorer",
    "MaskBuilder",
]

_DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@contextlib.contextmanager
def needs(*names: str) -> Iterator[None]:
    """Run a demo that calls the learner's exercises; if one is not written yet, say so.

    ``with needs("softmax"): ...`` prints "write `softmax` above first, then run this cell
    again" instead of a traceback when the code inside raises ``NotImplementedError`` (the stub of
    a blank exercise), naming the exercise whose stub raised when it can tell (among ``names``).
    A ``NameError`` raised by the demo cell itself (not inside the learner's code) is a result of
    an earlier demo that could not run yet: it says so too. Every other error propagates: it is a
    real bug, and the learner must see it.
    """
    try:
        yield
    except NotImplementedError as error:
        print(f"write {_unwritten(error, names)} above first, then run this cell again.")
    except NameError as error:
        if _raised_in(error).f_code.co_name != "<module>":
            raise
        listed = " and ".join(f"`{n}`" for n in names)
        print(f"write {listed} and run the cells above first ({error}).")


def _raised_in(error: BaseException):
    """The frame where ``error`` was raised."""
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame


def _unwritten(error: BaseException, names: Sequence[str]) -> str:
    """The exercise whose stub raised ``error`` (a function, or a method of a class), as `name`;
    all of ``names`` when the raising frame is none of them."""
    if error.__traceback__ is not None:
        frame = _raised_in(error)
        name = frame.f_code.co_name
        owner = frame.f_locals.get("self")
        if name not in names and owner is not None:
            name = type(owner).__name__
        if name in names:
            return f"`{name}`"
    return " and ".join(f"`{n}`" for n in names)


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
        png.for_type(Figure, lambda fig: _png(fig, dpi=90))


_display_figures_in_ipython()


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
    fig = Figure(figsize=(min(1.0 + 0.55 * cols, 7.0), min(0.8 + 0.45 * rows, 6.0)))
    ax = fig.add_subplot()
    image = _heatmap(ax, a, query_labels, key_labels, cmap=cmap, annotate=annotate, blocked=blocked)
    if not is_mask:
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
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
    fig = Figure(
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
    fig = Figure(figsize=(8.0, 3.2))
    left, right = fig.subplots(1, 2)
    left.loglog(dims, dims, "--", color="grey", label="$d_k$ (theory)")
    left.loglog(dims, measured, "o-", label="yours: Var$(q\\cdot k)$")
    left.set_xlabel("$d_k$")
    left.set_ylabel("variance")
    left.set_title("unscaled: variance grows like $d_k$", fontsize=10)
    left.legend(fontsize=8)
    scaled = [v / d for v, d in zip(measured, dims, strict=True)]
    right.semilogx(dims, [1.0] * len(dims), "--", color="grey", label="1 (theory)")
    right.semilogx(dims, scaled, "o-", color="tab:green", label="yours / $d_k$")
    right.set_ylim(0, 2)
    right.set_xlabel("$d_k$")
    right.set_title("scaled by $1/\\sqrt{d_k}$: variance stays 1", fontsize=10)
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
        self.scaled = widgets.Checkbox(value=False, description="divide by √d_k")
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
        self.summary.value = (
            f"d_k = {d}, {'scaled' if scaled else 'unscaled'}: mean entropy "
            f"<b>{entropy:.3f}</b> nats (uniform: {math.log(self.num_keys):.3f}), "
            f"largest weight {float(weights.max(-1).values.mean()):.2f} on average, "
            f"softmax gradient size <b>{grad:.3f}</b>"
        )
        self.figure = self._draw(weights[0], d, scaled)
        self.image.value = _png(self.figure)

    def _draw(self, row: torch.Tensor, d: int, scaled: bool) -> Figure:
        fig = Figure(figsize=(8.0, 2.8))
        left, right = fig.subplots(1, 2)
        left.bar(range(self.num_keys), row.numpy(), color="tab:blue")
        left.axhline(1 / self.num_keys, ls="--", color="grey", lw=1)
        left.set_ylim(0, 1)
        left.set_xlabel("key")
        left.set_ylabel("weight")
        left.set_title(f"one query's weights (d_k = {d})", fontsize=10)
        for flag, style, label in ((False, "o-", "unscaled"), (True, "s-", "÷√d_k")):
            right.semilogx(self.dims, self._curves[flag], style, label=label, ms=4)
        right.axhline(math.log(self.num_keys), ls="--", color="grey", lw=1, label="uniform")
        right.plot([d], [self._curves[scaled][self.dims.index(d)]], "o", ms=10, mfc="none", c="red")
        right.set_xlabel("$d_k$")
        right.set_ylabel("entropy (nats)")
        right.set_title("your softmax_entropy, averaged", fontsize=10)
        right.legend(fontsize=7)
        fig.tight_layout()
        return fig


class MaskBuilder(widgets.VBox):
    """Click cells to allow or block query -> key pairs and watch the attention weights change.

    ``weights = softmax(masked_scores(scores, mask))``, both from the learner's code; the grid of
    toggles is the mask (True = may attend, a lit button). Presets build the usual masks, and
    "MultiheadAttention polarity" feeds the *inverted* mask, to show what passing a mask of the
    wrong convention does.
    """

    def __init__(
        self,
        scores: torch.Tensor,
        tokens: Sequence[str],
        masked_scores: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
        softmax: Callable[..., torch.Tensor] | None = None,
    ):
        scores = scores.detach()
        if scores.ndim != 2 or scores.shape[0] != scores.shape[1] or scores.shape[0] != len(tokens):
            raise ValueError(
                f"MaskBuilder wants square (L, L) scores for L = {len(tokens)} tokens, "
                f"got {tuple(scores.shape)}"
            )
        self.scores = scores  # (L, L)
        self.tokens = list(tokens)
        self.masked_scores = masked_scores
        self.softmax = softmax or (lambda x, dim=-1: torch.softmax(x, dim=dim))
        n = len(self.tokens)
        self.cells = [
            [
                widgets.ToggleButton(
                    value=True,
                    description="",
                    tooltip=f"{self.tokens[i]} -> {self.tokens[j]}",
                    layout=widgets.Layout(width="28px", height="24px"),
                )
                for j in range(n)
            ]
            for i in range(n)
        ]
        for row in self.cells:
            for button in row:
                button.observe(self._on_toggle, names="value")
        grid = widgets.GridBox(
            [b for row in self.cells for b in row],
            layout=widgets.Layout(grid_template_columns=f"repeat({n}, 30px)", grid_gap="2px"),
        )
        self.preset = widgets.ToggleButtons(
            options=["all", "causal", "padding"], value="all", description="preset"
        )
        self.length = widgets.IntSlider(
            value=max(n - 2, 1), min=1, max=n, description="real tokens"
        )
        self.inverted = widgets.Checkbox(value=False, description="MultiheadAttention polarity")
        self.message = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.preset.observe(self._on_preset, names="value")
        self.length.observe(self._on_preset, names="value")
        self.inverted.observe(self.update, names="value")
        self._quiet = False
        controls = widgets.VBox(
            [
                self.preset,
                self.length,
                self.inverted,
                widgets.HTML("<b>mask</b> (rows: queries)"),
                grid,
            ]
        )
        super().__init__([widgets.HBox([controls, self.image]), self.message])
        self.update()

    @property
    def mask(self) -> torch.Tensor:
        """The mask the grid shows: bool ``(L, L)``, True = may attend."""
        return torch.tensor([[b.value for b in row] for row in self.cells], dtype=torch.bool)

    def set_mask(self, mask: torch.Tensor) -> None:
        """Set every toggle from a bool mask broadcastable to ``(L, L)``, then redraw once."""
        mask = torch.as_tensor(mask, dtype=torch.bool).expand(len(self.tokens), len(self.tokens))
        self._quiet = True
        try:
            for i, row in enumerate(self.cells):
                for j, button in enumerate(row):
                    button.value = bool(mask[i, j])
        finally:
            self._quiet = False
        self.update()

    def _on_toggle(self, change=None) -> None:
        if not self._quiet:
            self.update()

    def _on_preset(self, change=None) -> None:
        n = len(self.tokens)
        if self.preset.value == "all":
            self.set_mask(torch.ones(n, n, dtype=torch.bool))
        elif self.preset.value == "causal":
            self.set_mask(torch.ones(n, n, dtype=torch.bool).tril())
        else:  # padding: every query may look at the first `length` keys only
            keys = torch.arange(n) < self.length.value  # (S,)
            self.set_mask(keys[None, :].expand(n, n))

    def update(self, change=None) -> None:
        mask = self.mask  # (L, L)
        fed = ~mask if self.inverted.value else mask
        self.weights = self.softmax(self.masked_scores(self.scores, fed), dim=-1)  # (L, L)
        w = self.weights.detach().float()
        notes = []
        if bool(torch.isnan(w).any()):
            notes.append("NaN in the weights: a fully masked row divided 0 by 0")
        empty = (~fed).all(dim=-1)  # (L,)
        if bool(empty.any()):
            names = ", ".join(self.tokens[i] for i in range(len(self.tokens)) if empty[i])
            notes.append(f"fully masked query rows ({names}) should come out all zero")
        if self.inverted.value:
            notes.append(
                "inverted: each query may attend only where you meant to block it, and one you "
                "blocked from nothing is now blocked from everything"
            )
        self.message.value = "<br>".join(notes)
        self.figure = plot_attention(
            w, self.tokens, self.tokens, mask=fed, title="softmax(masked_scores(scores, mask))"
        )
        self.image.value = _png(self.figure)

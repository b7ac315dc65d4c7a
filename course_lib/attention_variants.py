"""Lesson 09: the attention variants the lesson surveys, ready-made, and their measurements.

Sparse patterns (exact attention over fewer pairs, bool masks, True = may attend):

* :func:`dilated_window_mask`: Longformer's dilated causal window (Beltagy et al. 2020,
  section 3.1, figure 2c): query ``i`` sees keys ``i, i - dilation, ...``, ``window`` of them.
* :func:`bigbird_mask`: a BigBird-style encoder pattern (Zaheer et al. 2020, section 2,
  figure 1): a band of blocks, random blocks, and global tokens.

Approximations of softmax attention:

* :func:`linformer_attention`: Linformer's idea (Wang et al. 2020, section 4) with a fixed
  projection: the ``L`` keys and values are compressed to ``rank`` rows, each the average of
  ``L / rank`` neighbouring positions, so the scores are ``(Lq, rank)`` instead of ``(Lq, L)``.
  At ``rank = L`` nothing is lost.
* :func:`performer_attention`: Performer's positive random features (Choromanski et al. 2021,
  section 2.3): ``phi(x) = exp(w . x - |x|^2 / 2) / sqrt(m)`` with ``w ~ N(0, I)``, whose dot
  products equal ``exp(q . k)`` on average; the product is regrouped so that no ``(L, L)``
  matrix is formed.
* :func:`relative_error` and :func:`power_law_exponent` (the slope of a log-log fit);
  :func:`approximation_errors` measures both approximations against exact attention, and
  :func:`plot_approximation_errors` draws them.

No masks: both are written for non-causal attention. Shape legend: ``(..., L, d)``.
"""

from __future__ import annotations

import math

import torch
from matplotlib.figure import Figure

from course_lib.labels import tr
from course_lib.viz_figures import use_matplotlib  # (its import teaches IPython a Figure)

use_matplotlib()  # a CJK fallback font for Chinese labels (see viz_figures)


def dilated_window_mask(seq_len: int, window: int, dilation: int) -> torch.Tensor:
    """Causal: query i sees keys i, i - dilation, ..., i - (window - 1) * dilation. (L, L) bool."""
    distance = torch.arange(seq_len)[:, None] - torch.arange(seq_len)[None, :]  # (L, L)
    return (distance >= 0) & (distance < window * dilation) & (distance % dilation == 0)


def bigbird_mask(
    seq_len: int, block: int, num_global: int, num_random: int, seed: int = 0
) -> torch.Tensor:
    """BigBird-style (encoder): a band of blocks, global tokens and random blocks. (L, L) bool.

    ``seq_len`` must be a multiple of ``block``; the first ``num_global`` tokens are global.
    """
    if block < 1 or seq_len % block:
        raise ValueError(
            f"seq_len must be a multiple of block: got seq_len={seq_len}, block={block}"
        )
    blocks = seq_len // block
    b = torch.arange(blocks)
    band = (b[:, None] - b[None, :]).abs() <= 1  # (blocks, blocks): each block and its neighbours
    g = torch.Generator().manual_seed(seed)
    for row in range(blocks):
        band[row, torch.randint(0, blocks, (num_random,), generator=g)] = True  # random blocks
    mask = band.repeat_interleave(block, 0).repeat_interleave(block, 1)  # (L, L)
    mask[:num_global, :] = True  # global tokens attend to everything
    mask[:, :num_global] = True  # and everything attends to them
    return mask


def _exact_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., Lq, Lk)
    return torch.softmax(scores, dim=-1) @ v  # (..., Lq, d_v)


def linformer_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, rank: int
) -> torch.Tensor:
    """Attention over ``rank`` averaged keys and values; ``L`` must be a multiple of ``rank``."""
    length = k.size(-2)
    if rank < 1 or length % rank:
        raise ValueError(
            f"rank must divide the number of keys: got rank={rank} for {length} keys; "
            "pick a divisor of L"
        )

    def compress(x):  # (..., L, d) -> (..., rank, L / rank, d) -> (..., rank, d)
        return x.reshape(*x.shape[:-2], rank, -1, x.size(-1)).mean(-2)

    return _exact_attention(q, compress(k), compress(v))  # scores (..., Lq, rank)


def performer_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, num_features: int, seed: int = 0
) -> torch.Tensor:
    """Softmax attention approximated with ``num_features`` positive random features."""
    d = q.size(-1)
    w = torch.randn(d, num_features, generator=torch.Generator().manual_seed(seed), dtype=q.dtype)
    q, k = q / d**0.25, k / d**0.25  # so that q . k carries the 1/sqrt(d) of attention

    def phi(x):  # (..., L, d) -> (..., L, m), positive
        return torch.exp(x @ w - (x**2).sum(-1, keepdim=True) / 2) / math.sqrt(num_features)

    kv = phi(k).transpose(-2, -1) @ v  # (..., m, L) @ (..., L, d_v) -> (..., m, d_v)
    normaliser = phi(q) @ phi(k).sum(-2, keepdim=True).transpose(-2, -1)  # (..., Lq, 1)
    return (phi(q) @ kv) / normaliser  # (..., Lq, d_v)


def relative_error(approx: torch.Tensor, exact: torch.Tensor) -> float:
    """``|approx - exact| / |exact|`` in the Frobenius norm."""
    return ((approx - exact).norm() / exact.norm()).item()


def power_law_exponent(xs, ys) -> float:
    """The slope b of a least-squares line through (log x, log y): y falls like x ** b."""
    x, y = torch.tensor(xs, dtype=torch.float64).log(), torch.tensor(ys, dtype=torch.float64).log()
    x, y = x - x.mean(), y - y.mean()
    return ((x * y).sum() / (x * x).sum()).item()


def approximation_errors(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sizes, draws: int = 8):
    """Relative errors against exact attention, for each size in ``sizes``.

    Returns ``(linformer, performer)``: Linformer-style errors for the sizes ``<= L`` (rank
    ``k``; each must divide ``L``), and Performer errors for every size (``m`` features, the
    mean over ``draws`` independent sets of random features, seeds ``0 .. draws - 1``).
    """
    exact = _exact_attention(q, k, v)
    length = k.size(-2)
    linformer = [
        relative_error(linformer_attention(q, k, v, r), exact) for r in sizes if r <= length
    ]
    performer = [
        sum(relative_error(performer_attention(q, k, v, m, seed=s), exact) for s in range(draws))
        / draws
        for m in sizes
    ]
    return linformer, performer


def plot_approximation_errors(sizes, linformer, performer, title: str) -> Figure:
    """Both errors against k or m on log-log axes, with a 1/sqrt(m) line for reference."""
    fig = Figure(figsize=(5.5, 3.4), layout="constrained")
    ax = fig.subplots()
    # exactly 0 at k = L: off a log scale; linformer is shorter than sizes (only k <= L)
    shown = [(r, e) for r, e in zip(sizes[: len(linformer)], linformer, strict=True) if e > 0]
    ax.loglog(
        *zip(*shown, strict=True),
        "o-",
        base=2,
        label=tr("Linformer-style, k averaged rows (0 at k = L)"),
    )
    ax.loglog(sizes, performer, "s-", base=2, label=tr("Performer, m random features"))
    ax.loglog(
        sizes,
        [performer[-1] * (sizes[-1] / m) ** 0.5 for m in sizes],
        "k:",
        base=2,
        label=tr("1/sqrt(m), for reference"),
    )
    ax.set(xlabel=tr("k or m"), ylabel=tr("relative error vs exact"), title=title)
    ax.legend(fontsize=8)
    return fig

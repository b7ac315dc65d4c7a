"""Lessons 02-05: scaled dot-product attention, from the loop to the vectorised version.

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Each query scores every key with a dot product, softmax turns a query's scores into weights
that are positive and sum to 1, and the output is the weighted average of the values.

The ladder of implementations, each tested against the one below it:
:func:`attention_loop` (one query and one key at a time) -> :func:`scaled_dot_product_attention`
(matrices) -> :func:`course_lib.efficient.tiled_attention` (blocks, online softmax) ->
``torch.nn.functional.scaled_dot_product_attention``.

Shape legend: ``...`` any leading batch dims (e.g. B batch, H heads), T queries (Lq),
S keys (Lk), K key/query dim (d_k), V value dim (d_v), M d_model.
"""

import math

import torch
from torch import nn

from course_lib.masks import masked_scores

__all__ = [
    "attention_scores",
    "scaled_attention_scores",
    "softmax",
    "scaled_dot_product_attention",
    "attention_loop",
    "SelfAttention",
]


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """How well each query matches each key: ``scores[i, j] = q_i · k_j``, i.e. ``Q K^T``.

    Args:
        q: ``(..., T, K)``.  k: ``(..., S, K)``.

    Returns:
        ``(..., T, S)``.
    """
    return q @ k.transpose(-2, -1)  # (..., T, K) @ (..., K, S) -> (..., T, S)


def scaled_attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """``Q K^T / sqrt(d_k)``.

    For q and k with independent unit-variance entries, ``q · k`` is a sum of ``d_k`` terms of
    variance 1, so its variance is ``d_k``.  Dividing by ``sqrt(d_k)`` brings it back to 1, which
    keeps softmax out of its saturated, one-hot regime (where gradients vanish).

    ``(Q / sqrt(d_k)) K^T`` is the same number and cheaper: it divides the ``T x K`` queries
    instead of the ``T x S`` scores.

    Returns:
        ``(..., T, S)``.
    """
    d_k = q.size(-1)
    return attention_scores(q / math.sqrt(d_k), k)  # (..., T, S)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Numerically stable softmax: ``softmax(x)_i = exp(x_i - m) / sum_j exp(x_j - m)``.

    Subtracting the row maximum ``m`` changes nothing mathematically (it cancels) but keeps
    every exponent ``<= 0``, so ``exp`` never overflows, even for huge finite inputs.

    A row that is entirely ``-inf`` (a query whose keys are all masked) gives all zeros rather
    than NaN: its maximum is replaced by 0, every ``exp`` is 0, and we divide by 1 instead of 0.
    """
    m = x.amax(dim=dim, keepdim=True)  # the maximum along dim, kept as size 1
    m = torch.where(torch.isfinite(m), m, 0.0)  # an all -inf row has max -inf: use 0
    e = (x - m).exp_()  # exponents <= 0, so 0 <= e <= 1; exp_ reuses the new tensor x - m
    total = e.sum(dim=dim, keepdim=True)  # >= 1 (the max gives exp(0)) unless all -inf
    return e / total.clamp(min=1.0)  # an all -inf row has total 0: divide by 1, stay 0


def apply_mask(scores: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """Apply an attention mask of either kind, as ``F.scaled_dot_product_attention`` does.

    - **bool** (True = may attend): blocked scores become ``-inf`` (:func:`masked_scores`);
    - **float** (an *additive* mask, e.g. 0 where allowed and ``-inf`` where blocked, or a bias
      such as ALiBi's): added to the scores, after a cast to their dtype (so a float32 mask works
      with float16 scores, as SDPA allows).  A row of ``-inf`` blocks the whole query.

    The two kinds convert into each other: ``additive = torch.zeros_like(mask, dtype=dt)
    .masked_fill(~mask, float("-inf"))`` and, for a 0 / ``-inf`` mask, ``mask == 0`` (not
    ``mask.bool()``, which is True at the ``-inf`` entries: the opposite).

    Args:
        scores: ``(..., T, S)`` float.
        mask: bool or float, broadcastable to ``(..., T, S)``; ``None`` = no mask.

    Returns:
        The masked scores, broadcast to the shape of ``scores`` and ``mask``.
    """
    if mask is None or mask.dtype == torch.bool:
        return masked_scores(scores, mask)
    if not mask.is_floating_point():
        raise TypeError(
            f"the mask must be bool (True = may attend) or float (added to the scores), got "
            f"{mask.dtype}; for a 0/1 mask where 1 means 'may attend', pass mask.bool()"
        )
    return scores + mask.to(scores.dtype)  # (..., T, S) + (..., T, S) broadcast


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """``softmax(Q K^T / sqrt(d_k) + mask) V``, returning the output and the weights.

    Equivalent to this loop over one sequence (see :func:`attention_loop`)::

        for i in range(T):
            weights[i] = softmax([q[i] · k[j] / sqrt(d_k) if mask[i, j] else -inf
                                  for j in range(S)])
            output[i] = sum(weights[i, j] * v[j] for j in range(S))

    With a float mask, the score of ``(i, j)`` is ``q[i] · k[j] / sqrt(d_k) + mask[i, j]``.

    Args:
        q: ``(..., T, K)``.  k: ``(..., S, K)``.  v: ``(..., S, V)``.
        mask: broadcastable to ``(..., T, S)``; bool (True = may attend) or float (added to the
            scores, see :func:`apply_mask`).  A query whose keys are all masked (all False, or
            all ``-inf``) gets all-zero weights and an all-zero output.

    Returns:
        ``output (..., T, V)`` and ``weights (..., T, S)``.  ``output`` matches
        ``F.scaled_dot_product_attention(q, k, v, attn_mask=mask)``.
    """
    scores = scaled_attention_scores(q, k)  # (..., T, S)
    scores = apply_mask(scores, mask)  # (..., T, S)
    weights = softmax(scores, dim=-1)  # (..., T, S), each row sums to 1 (or is all 0)
    output = weights @ v  # (..., T, S) @ (..., S, V) -> (..., T, V)
    return output, weights


def attention_loop(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """Attention written one query and one key at a time: slow, but every step is visible.

    Only the leading batch dims are vectorised; use it on short sequences.

    Args:
        q: ``(..., T, K)``.  k: ``(..., S, K)``.  v: ``(..., S, V)``.
        mask: bool (True = may attend) or float (added), broadcastable to ``(..., T, S)``.

    Returns:
        ``output (..., T, V)``, the same as :func:`scaled_dot_product_attention`'s.
    """
    T, S, d_k = q.size(-2), k.size(-2), q.size(-1)
    if mask is not None:
        mask = mask.expand(*mask.shape[:-2], T, S)  # make the query and key dims explicit
    rows = []
    for i in range(T):
        scores = []
        for j in range(S):
            score = (q[..., i, :] * k[..., j, :]).sum(dim=-1) / math.sqrt(d_k)  # (...)
            scores.append(score)
        scores = torch.stack(scores, dim=-1)  # (..., S)
        if mask is not None:
            scores = apply_mask(scores, mask[..., i, :])  # (..., S)
        weights = softmax(scores, dim=-1)  # (..., S)
        row = 0
        for j in range(S):
            row = row + weights[..., j, None] * v[..., j, :]  # (..., 1) * (..., V) -> (..., V)
        rows.append(row)
    return torch.stack(rows, dim=-2)  # T x (..., V) -> (..., T, V)


class SelfAttention(nn.Module):
    """Single-head self-attention: project ``x`` to q, k, v, then attend.

    Attributes ``w_q``, ``w_k``: ``nn.Linear(d_model, d_k, bias=False)``;
    ``w_v``: ``nn.Linear(d_model, d_v, bias=False)``.
    """

    def __init__(self, d_model: int, d_k: int, d_v: int):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``x: (..., L, M)`` -> ``output (..., L, V)``, ``weights (..., L, L)``.

        ``mask``: bool or float, as in :func:`scaled_dot_product_attention`.
        """
        q = self.w_q(x)  # (..., L, K)
        k = self.w_k(x)  # (..., L, K)
        v = self.w_v(x)  # (..., L, V)
        return scaled_dot_product_attention(q, k, v, mask)

"""Lesson 04 and 09: masks, and the one place that turns a mask into scores.

Convention (the same as ``F.scaled_dot_product_attention``): a mask is a **bool** tensor
broadcastable to the scores ``(..., Lq, Lk)``, and **True means "this query may attend to this
key"**.  ``nn.MultiheadAttention``'s ``attn_mask``/``key_padding_mask`` use the opposite polarity
(True = blocked): convert with ``~mask``.

Shape legend: B batch, L sequence length, T queries (Lq), S keys (Lk).
"""

import torch

__all__ = ["causal_mask", "padding_mask", "sliding_window_mask", "masked_scores"]


def causal_mask(seq_len: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Query ``i`` may attend to key ``j`` iff ``j <= i`` (no peeking at the future).

    Example for ``seq_len=3`` (rows are queries, columns keys)::

        [[ True, False, False],
         [ True,  True, False],
         [ True,  True,  True]]

    Returns:
        bool ``(L, L)``.
    """
    ones = torch.ones(seq_len, seq_len, dtype=torch.bool, device=device)  # (L, L)
    return torch.tril(ones)  # lower triangle, diagonal included


def padding_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """True at the real tokens of each sequence, False at the padding after them.

    ``mask[b, j] = j < lengths[b]``.  To use it as an attention mask over keys, add the query
    (and head) dims: ``mask[:, None, :]`` is ``(B, 1, S)``, ``mask[:, None, None, :]`` is
    ``(B, 1, 1, S)``.

    Args:
        lengths: ``(B,)`` integer tensor, the number of real tokens in each sequence.

    Returns:
        bool ``(B, max_len)``.
    """
    positions = torch.arange(max_len, device=lengths.device)  # (L,)
    return positions < lengths[:, None]  # (L,) < (B, 1) -> (B, L)


def sliding_window_mask(
    seq_len: int, window: int, device: torch.device | str | None = None
) -> torch.Tensor:
    """Causal local attention: query ``i`` sees keys ``j`` with ``0 <= i - j < window``.

    Each token sees itself and the ``window - 1`` tokens before it (Longformer, Mistral).

    Returns:
        bool ``(L, L)``.
    """
    i = torch.arange(seq_len, device=device)[:, None]  # (L, 1) query index
    j = torch.arange(seq_len, device=device)[None, :]  # (1, L) key index
    distance = i - j  # (L, L)
    return (distance >= 0) & (distance < window)


def masked_scores(scores: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """Set the scores of masked-out (False) positions to ``-inf``.

    ``exp(-inf) = 0``, so softmax then gives those keys weight exactly 0, in every float dtype
    (a large negative number such as ``-1e9`` would overflow float16).  This is the only
    function of the course that fills ``-inf``.

    Args:
        scores: ``(..., T, S)`` float.
        mask: bool, broadcastable to ``(..., T, S)``; True = may attend.  ``None`` = no mask.

    Returns:
        The scores with the mask applied, broadcast to the shape of ``scores`` and ``mask``.
    """
    if mask is None:
        return scores
    if mask.dtype != torch.bool:
        raise TypeError(f"the mask must be a bool tensor (True = may attend), got {mask.dtype}")
    return torch.where(mask, scores, float("-inf"))  # (..., T, S)

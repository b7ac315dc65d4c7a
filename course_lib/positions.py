"""Lesson 07: telling attention where tokens are.

Attention alone is permutation-equivariant: shuffle the tokens and the outputs are shuffled the
same way, so "dog bites man" and "man bites dog" look alike.  Three fixes:

* sinusoidal encodings (Vaswani et al. 2017), added to the token vectors;
* learned position embeddings (BERT, GPT-2), added to the token vectors;
* rotary embeddings, RoPE (Su et al. 2021), which rotate q and k so that ``q_p · k_s`` depends
  only on the offset ``p - s``.

Shape legend: B batch, L sequence length, M d_model, D feature dim of q/k (even), P = D / 2 pairs.
"""

import torch
from torch import nn

__all__ = ["sinusoidal_positional_encoding", "LearnedPositionalEmbedding", "apply_rope"]


def sinusoidal_positional_encoding(
    max_len: int,
    d_model: int,
    device: torch.device | str | None = None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The fixed encodings of "Attention Is All You Need".

    ``PE[p, 2i] = sin(p / 10000^(2i / d_model))``,
    ``PE[p, 2i+1] = cos(p / 10000^(2i / d_model))``:
    pair ``i`` is a clock hand turning at its own frequency, from one turn per ``2 pi`` positions
    (``i = 0``) down to one per ``2 pi * 10000`` positions.

    Returns:
        ``(max_len, d_model)``.  Raises ``ValueError`` for an odd ``d_model``.
    """
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even (sin/cos pairs), got {d_model}")
    position = torch.arange(max_len, device=device, dtype=torch.float64)[:, None]  # (L, 1)
    two_i = torch.arange(0, d_model, 2, device=device, dtype=torch.float64)  # (M/2,)
    angle = position / 10000 ** (two_i / d_model)  # (L, 1) / (M/2,) -> (L, M/2)
    pe = torch.zeros(max_len, d_model, device=device, dtype=torch.float64)  # (L, M)
    pe[:, 0::2] = torch.sin(angle)  # even features
    pe[:, 1::2] = torch.cos(angle)  # odd features
    return pe.to(dtype)


class LearnedPositionalEmbedding(nn.Module):
    """Adds a learned vector per position: ``x[:, p] + embedding(p)``.

    Attribute ``embedding``: ``nn.Embedding(max_len, d_model)``.  It cannot handle sequences
    longer than ``max_len`` (there is no vector for those positions): that raises ``ValueError``.
    """

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """``x: (B, L, M)`` -> ``(B, L, M)``, adding the embeddings of positions
        ``offset .. offset + L - 1`` (``offset`` > 0 when decoding with a KV cache)."""
        L = x.size(-2)
        if offset + L > self.max_len:
            raise ValueError(
                f"positions up to {offset + L - 1} requested, but max_len is {self.max_len}"
            )
        positions = torch.arange(offset, offset + L, device=x.device)  # (L,)
        return x + self.embedding(positions)  # (B, L, M) + (L, M) -> (B, L, M)


def apply_rope(
    x: torch.Tensor, positions: torch.Tensor | None = None, base: float = 10000.0
) -> torch.Tensor:
    """Rotary position embedding: rotate each feature pair by an angle proportional to position.

    Pair ``i`` of the token at position ``p``, ``(x[2i], x[2i+1])``, is rotated by
    ``theta = p * base^(-2i / D)``::

        x'[2i]   = x[2i] cos(theta) - x[2i+1] sin(theta)
        x'[2i+1] = x[2i] sin(theta) + x[2i+1] cos(theta)

    Rotations compose, so ``rope(q, p) · rope(k, s) = q · R(s - p) k``: the score depends only
    on the relative position ``s - p``.  Apply it to q and k (not v) before attention.

    Args:
        x: ``(..., L, D)`` with ``D`` even.
        positions: ``(L,)`` (or broadcastable to ``(..., L)``); defaults to ``0 .. L-1``.

    Returns:
        ``(..., L, D)``, same dtype as ``x``.
    """
    L, D = x.size(-2), x.size(-1)
    if D % 2 != 0:
        raise ValueError(f"the feature dim must be even (rotated pairs), got {D}")
    if positions is None:
        positions = torch.arange(L, device=x.device)  # (L,)
    angle_dtype = torch.promote_types(x.dtype, torch.float32)  # float32 or float64
    two_i = torch.arange(0, D, 2, device=x.device, dtype=angle_dtype)  # (P,)
    inv_freq = base ** (-two_i / D)  # (P,)
    theta = positions.to(angle_dtype)[..., None] * inv_freq  # (..., L, 1) * (P,) -> (..., L, P)
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)  # (..., L, P) each
    x_even, x_odd = x[..., 0::2], x[..., 1::2]  # (..., L, P) each
    rotated_even = x_even * cos - x_odd * sin  # (..., L, P)
    rotated_odd = x_even * sin + x_odd * cos  # (..., L, P)
    rotated = torch.stack([rotated_even, rotated_odd], dim=-1)  # (..., L, P, 2)
    return rotated.flatten(-2)  # (..., L, D), pairs interleaved again

"""Lesson 06: multi-head attention.

Instead of one attention over ``d_model`` features, run ``h`` attentions side by side, each on
its own ``d_head = d_model / h`` slice of the projected features, then mix the heads' outputs
with one more linear layer:

    head_i = Attention(Q W_Q[:, slice_i], K W_K[:, slice_i], V W_V[:, slice_i])
    MHA(Q, K, V) = concat(head_1, ..., head_h) W_O

Splitting into heads is only a reshape: no new parameters.

Shape legend: B batch, H heads, T queries (Lq), S keys (Lk), M d_model, D d_head (M = H * D).
"""

import torch
from torch import nn

from course_lib.attention import scaled_dot_product_attention
from course_lib.efficient import KVCache

__all__ = ["split_heads", "merge_heads", "MultiHeadAttention", "mha_num_parameters"]


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``(B, L, H*D) -> (B, H, L, D)``; head ``i`` takes features ``[i*D, (i+1)*D)``."""
    d_model = x.size(-1)
    if d_model % num_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    x = x.unflatten(-1, (num_heads, d_model // num_heads))  # (B, L, H*D) -> (B, L, H, D)
    return x.transpose(-3, -2)  # (B, L, H, D) -> (B, H, L, D)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`split_heads`: ``(B, H, L, D) -> (B, L, H*D)``."""
    x = x.transpose(-3, -2)  # (B, H, L, D) -> (B, L, H, D)
    return x.flatten(-2)  # (B, L, H, D) -> (B, L, H*D), copies since x is not contiguous


class MultiHeadAttention(nn.Module):
    """Multi-head attention with ``nn.Linear`` projections ``w_q``, ``w_k``, ``w_v``, ``w_o``.

    With the weights of an ``nn.MultiheadAttention(d_model, h, bias=..., batch_first=True)``
    copied in (its ``in_proj_weight`` chunks into q, k, v; ``out_proj`` is ``w_o``) it computes
    the same thing.  Mind the mask polarity: here True = may attend, there True = blocked.
    """

    def __init__(self, d_model: int, num_heads: int, bias: bool = False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor | None = None,
        value: torch.Tensor | None = None,
        mask: torch.Tensor | None = None,
        cache: KVCache | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Attend from ``query (B, T, M)`` to ``key (B, S, M)`` / ``value (B, S, M)``.

        Args:
            key, value: default to ``query`` (self-attention); ``value`` defaults to ``key``.
            mask: broadcastable to ``(B, H, T, S)``: bool, True = may attend, or float, added
                to the scores.  A padding mask ``(B, S)`` becomes ``mask[:, None, None, :]``.
            cache: optional :class:`KVCache`; the new keys and values are
                appended to it and the queries attend to everything cached so far.

        Returns:
            ``output (B, T, M)`` and per-head ``weights (B, H, T, S)``.
        """
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.w_q(query), self.num_heads)  # (B, T, M) -> (B, H, T, D)
        k = split_heads(self.w_k(key), self.num_heads)  # (B, S, M) -> (B, H, S, D)
        v = split_heads(self.w_v(value), self.num_heads)  # (B, S, M) -> (B, H, S, D)
        if cache is not None:
            k, v = cache.append(k, v)  # (B, H, S_cached + S, D)
        out, weights = scaled_dot_product_attention(q, k, v, mask)  # (B,H,T,D), (B,H,T,S)
        out = self.w_o(merge_heads(out))  # (B, H, T, D) -> (B, T, M)
        return out, weights


def mha_num_parameters(d_model: int, num_heads: int, bias: bool = False) -> int:
    """Parameters of :class:`MultiHeadAttention`: four ``M x M`` matrices (+ four biases).

    ``4 M^2 (+ 4 M)``, whatever ``num_heads`` is: more heads means thinner heads, not more
    weights.
    """
    if d_model % num_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    per_linear = d_model * d_model + (d_model if bias else 0)
    return 4 * per_linear

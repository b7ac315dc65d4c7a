"""Lesson 09: attention without the (Lq, Lk) matrix, and decoding with a KV cache.

**Tiled attention with online softmax** (FlashAttention, Dao et al. 2022).  Softmax needs the
whole row of scores, but it can be computed a block of keys at a time if we keep, per query,
the running maximum ``m``, the running denominator ``l = sum exp(s - m)`` and the running
unnormalised output ``acc = sum exp(s - m) v``.  When a new block raises the maximum from
``m`` to ``m_new``, everything accumulated so far is rescaled by ``exp(m - m_new)``::

    m_new = max(m, rowmax(s_block))
    p     = exp(s_block - m_new)
    l     = l   * exp(m - m_new) + rowsum(p)
    acc   = acc * exp(m - m_new) + p @ v_block
    ...
    output = acc / l

All queries meet one block of keys at a time, so the largest temporary is ``(T, block)``: peak
memory is ``O(T block + T d)``, linear in the length, instead of ``O(T S)``.  (FlashAttention
tiles the queries too, so that a tile fits in a GPU's on-chip memory; in plain PyTorch every
tile is a Python iteration, and one loop over key blocks is both simpler and faster.)  Like
FlashAttention, the running statistics are kept in float32 when the inputs are float16 or
bfloat16: a sum of thousands of exponentials in float16 would lose digits.

**KV cache.**  When generating token by token, the keys and values of earlier tokens never
change (causal attention), so each step only projects the new token and appends its k, v.

Shape legend: ``...`` leading batch dims, T queries (Lq), S keys (Lk), K d_k, V d_v,
Sb a block of keys.
"""

import math

import torch

from course_lib.masks import masked_scores

__all__ = ["tiled_attention", "KVCache"]


def tiled_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    block_size: int = 64,
    causal: bool = False,
) -> torch.Tensor:
    """``softmax(Q K^T / sqrt(d_k)) V`` computed block by block, never holding a (T, S) matrix.

    Args:
        q: ``(..., T, K)``.  k: ``(..., S, K)``.  v: ``(..., S, V)``.
        block_size: keys per block.
        causal: query ``i`` attends to keys ``j <= i`` (aligned top-left, like
            ``F.scaled_dot_product_attention(..., is_causal=True)``); key blocks that lie
            entirely in the future of every query are skipped.

    Returns:
        ``output (..., T, V)`` in the dtype of ``q``, equal to
        ``F.scaled_dot_product_attention(q, k, v, is_causal=causal)``.  Float16 and bfloat16
        inputs are accumulated in float32, as FlashAttention does.
    """
    T, S, dtype = q.size(-2), k.size(-2), q.dtype
    work = torch.promote_types(q.dtype, torch.float32)  # float32, or float64 for float64 inputs
    q = q.to(work) / math.sqrt(q.size(-1))  # (..., T, K), scaled once instead of every tile
    m = q.new_full((*q.shape[:-1], 1), float("-inf"))  # (..., T, 1) running max
    l = q.new_zeros((*q.shape[:-1], 1))  # (..., T, 1) running denominator
    acc = q.new_zeros((*q.shape[:-1], v.size(-1)))  # (..., T, V) running weighted sum of values
    query_pos = torch.arange(T, device=q.device)[:, None]  # (T, 1)

    for j0 in range(0, S, block_size):
        if causal and j0 > T - 1:
            break  # this key block and all after it are in the future of every query
        k_block = k[..., j0 : j0 + block_size, :].to(work)  # (..., Sb, K)
        v_block = v[..., j0 : j0 + block_size, :].to(work)  # (..., Sb, V)
        s = q @ k_block.transpose(-2, -1)  # (..., T, K) @ (..., K, Sb) -> (..., T, Sb)
        if causal:
            key_pos = torch.arange(j0, j0 + s.size(-1), device=q.device)  # (Sb,)
            s = masked_scores(s, key_pos <= query_pos)  # (T, Sb) mask -> (..., T, Sb)

        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (..., T, 1)
        m_safe = torch.where(torch.isfinite(m_new), m_new, 0.0)  # rows with no key yet
        # exp in place on the fresh s - m_safe (not on s: amax keeps s for autograd)
        p = (s - m_safe).exp_()  # (..., T, Sb) unnormalised weights
        correction = torch.exp(m - m_safe)  # (..., T, 1) rescales what came before
        # l = l * correction + rowsum(p) and acc = acc * correction + p @ v_block, in place
        l.mul_(correction).add_(p.sum(dim=-1, keepdim=True))  # (..., T, 1)
        acc.mul_(correction).add_(p @ v_block)  # (..., T, V)
        m = m_new

    # l >= 1 for a query that saw any key (its max term is exp(0)); 0 if it saw none
    return (acc / l.clamp(min=1.0)).to(dtype)  # (..., T, V)


class KVCache:
    """Keys and values of the tokens seen so far, for one attention layer.

    ``append(k, v)`` concatenates the new ``(..., S_new, D)`` keys and values to the cached ones
    along the sequence dim (-2) and returns everything: ``(..., S_cached + S_new, D)``.
    """

    def __init__(self):
        self.k: torch.Tensor | None = None
        self.v: torch.Tensor | None = None

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=-2)  # (..., S_cached + S_new, D)
            self.v = torch.cat([self.v, v], dim=-2)  # (..., S_cached + S_new, D)
        return self.k, self.v

    def __len__(self) -> int:
        """Number of cached positions."""
        return 0 if self.k is None else self.k.size(-2)

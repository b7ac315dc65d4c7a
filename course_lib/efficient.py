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

Looping over query blocks too, the largest temporary is ``(block, block)``: peak memory is
``O(block^2 + L d)`` instead of ``O(L^2)``.

**KV cache.**  When generating token by token, the keys and values of earlier tokens never
change (causal attention), so each step only projects the new token and appends its k, v.

Shape legend: ``...`` leading batch dims, T queries (Lq), S keys (Lk), K d_k, V d_v,
Tb / Sb a block of queries / keys.
"""

import math

import torch

from course_lib.masks import masked_scores


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
        block_size: queries and keys per block.
        causal: query ``i`` attends to keys ``j <= i`` (aligned top-left, like
            ``F.scaled_dot_product_attention(..., is_causal=True)``); key blocks that lie
            entirely in the future of a query block are skipped.

    Returns:
        ``output (..., T, V)``, equal to ``F.scaled_dot_product_attention(q, k, v,
        is_causal=causal)``.
    """
    T, S = q.size(-2), k.size(-2)
    scale = 1.0 / math.sqrt(q.size(-1))
    outputs = []
    for i0 in range(0, T, block_size):
        q_block = q[..., i0 : i0 + block_size, :] * scale  # (..., Tb, K)
        Tb = q_block.size(-2)
        m = q_block.new_full((*q_block.shape[:-1], 1), float("-inf"))  # (..., Tb, 1) running max
        l = q_block.new_zeros((*q_block.shape[:-1], 1))  # (..., Tb, 1) running denominator
        acc = q_block.new_zeros((*q_block.shape[:-1], v.size(-1)))  # (..., Tb, V) running sum

        for j0 in range(0, S, block_size):
            if causal and j0 > i0 + Tb - 1:
                break  # this key block and all after it are in the future of every query here
            k_block = k[..., j0 : j0 + block_size, :]  # (..., Sb, K)
            v_block = v[..., j0 : j0 + block_size, :]  # (..., Sb, V)
            s = q_block @ k_block.transpose(-2, -1)  # (..., Tb, K) @ (..., K, Sb) -> (..., Tb, Sb)
            if causal:
                query_pos = torch.arange(i0, i0 + Tb, device=q.device)[:, None]  # (Tb, 1)
                key_pos = torch.arange(j0, j0 + s.size(-1), device=q.device)  # (Sb,)
                s = masked_scores(s, key_pos <= query_pos)  # (Tb, Sb) mask -> (..., Tb, Sb)

            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (..., Tb, 1)
            m_safe = torch.where(torch.isfinite(m_new), m_new, 0.0)  # rows with no key yet
            p = torch.exp(s - m_safe)  # (..., Tb, Sb) unnormalised weights
            correction = torch.exp(m - m_safe)  # (..., Tb, 1) rescales what came before
            l = l * correction + p.sum(dim=-1, keepdim=True)  # (..., Tb, 1)
            acc = acc * correction + p @ v_block  # (..., Tb, V)
            m = m_new

        # l >= 1 for a query that saw any key (its max term is exp(0)); 0 if it saw none
        outputs.append(acc / l.clamp(min=1.0))  # (..., Tb, V)
    return torch.cat(outputs, dim=-2)  # (..., T, V)


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

# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
# Lesson 09's exercises in this style. The whole style is every lesson's idioms.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def sliding_window_mask(seq_len, window):
    ones = torch.ones(seq_len, seq_len, dtype=torch.bool)
    return torch.tril(ones) & torch.triu(ones, diagonal=1 - window)


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype  # half inputs: the arithmetic in float32, as FlashAttention
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    *batch, Lq, d = q.shape
    Lk = k.shape[-2]
    o = q.new_zeros(*batch, Lq, v.shape[-1])
    l = q.new_zeros(*batch, Lq, 1)
    m = q.new_full((*batch, Lq, 1), -math.inf)
    i = torch.arange(Lq, device=q.device).unsqueeze(-1)
    for j0 in range(0, Lk, block_size):
        j1 = min(j0 + block_size, Lk)
        s = torch.matmul(q, k[..., j0:j1, :].mT) / math.sqrt(d)
        if causal:
            j = torch.arange(j0, j1, device=q.device)
            s = torch.where(j <= i, s, -math.inf)
        m_blk = s.amax(-1, keepdim=True)
        m_new = torch.maximum(m, m_blk).nan_to_num(neginf=0.0)
        p = (s - m_new).exp()
        corr = (m - m_new).exp()
        l.mul_(corr).add_(p.sum(-1, keepdim=True))
        o.mul_(corr).add_(p @ v[..., j0:j1, :])
        m = torch.maximum(m, m_blk)
    return (o / l).to(dtype)


class KVCache:
    def __init__(self):
        self.cache = {}

    def append(self, k, v):
        if not self.cache:
            self.cache = {"k": k, "v": v}
        else:
            self.cache = {name: torch.cat([self.cache[name], new], dim=-2) for name, new in (("k", k), ("v", v))}
        return self.cache["k"], self.cache["v"]

# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 09's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def sliding_window_mask(seq_len, window):
    mask = torch.zeros(seq_len, seq_len, dtype=torch.bool)
    for i in range(seq_len):
        for j in range(max(0, i - window + 1), i + 1):
            mask[i, j] = True
    return mask


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype  # half inputs: the arithmetic in float32, as FlashAttention
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    Lq, Lk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    out = torch.empty(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    for qs in range(0, Lq, block_size):  # tile the queries too
        qb = q[..., qs : qs + block_size, :]
        rows = torch.arange(qs, qs + qb.shape[-2], device=q.device)
        m = torch.full((*qb.shape[:-1], 1), -float("inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
        for ks in range(0, Lk, block_size):
            if causal and ks > qs + qb.shape[-2] - 1:
                break  # every later key is in the future
            kb = k[..., ks : ks + block_size, :]
            vb = v[..., ks : ks + block_size, :]
            s = torch.matmul(qb, kb.transpose(-1, -2)) / math.sqrt(d)
            if causal:
                cols = torch.arange(ks, ks + kb.shape[-2], device=q.device)
                s = s.masked_fill(cols[None, :] > rows[:, None], -float("inf"))
            m_new = torch.maximum(m, s.max(dim=-1, keepdim=True).values)
            m_safe = m_new.masked_fill(m_new == -float("inf"), 0.0)
            p = torch.exp(s - m_safe)
            scale = torch.exp(m - m_safe)
            l = l * scale + p.sum(dim=-1, keepdim=True)
            acc = acc * scale + torch.matmul(p, vb)
            m = m_new
        out[..., qs : qs + block_size, :] = acc / l
    return (out).to(dtype)


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        self.k = k if self.k is None else torch.cat((self.k, k), dim=k.dim() - 2)
        self.v = v if self.v is None else torch.cat((self.v, v), dim=v.dim() - 2)
        return self.k, self.v

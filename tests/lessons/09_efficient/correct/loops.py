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
    """A preallocated buffer (as a static cache), grown by doubling and written in place;
    append returns views of its filled part (trial 8: once refused by the gradient probe)."""

    def __init__(self):
        self.k = None
        self.v = None
        self._kb = self._vb = None
        self._n = 0

    def __len__(self):
        return 0 if self.k is None else self.k.size(-2)

    def _grow(self, buf, new, need):
        if buf is None or buf.size(-2) < need:
            cap = max(need, 2 * (0 if buf is None else buf.size(-2)), 16)
            nb = new.new_zeros(*new.shape[:-2], cap, new.size(-1))
            if buf is not None:
                nb[..., : self._n, :] = buf[..., : self._n, :]
            buf = nb
        return buf

    def append(self, k, v):
        need = self._n + k.size(-2)
        self._kb = self._grow(self._kb, k, need)
        self._vb = self._grow(self._vb, v, need)
        self._kb[..., self._n:need, :] = k
        self._vb[..., self._n:need, :] = v
        self._n = need
        self.k, self.v = self._kb[..., :need, :], self._vb[..., :need, :]
        return self.k, self.v

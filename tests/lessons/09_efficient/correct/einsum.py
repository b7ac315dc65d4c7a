# A learner who likes einsum, torch.where and building things from scratch.
# Lesson 09's exercises in this style. The whole style is every lesson's einsum.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
from torch import nn


def sliding_window_mask(seq_len, window):
    d = torch.arange(seq_len)[:, None] - torch.arange(seq_len)[None, :]
    return torch.where((d >= 0) & (d < window), True, False)


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype  # half inputs: the arithmetic in float32, as FlashAttention
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    Lq, Lk = q.shape[-2], k.shape[-2]
    q = q / math.sqrt(q.shape[-1])
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    denom = torch.zeros(*q.shape[:-1], dtype=q.dtype, device=q.device)
    run_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
    qpos = torch.arange(Lq, device=q.device)
    for kb, vb, kpos in zip(k.split(block_size, -2), v.split(block_size, -2), torch.arange(Lk, device=q.device).split(block_size)):
        s = torch.einsum("...qd,...kd->...qk", q, kb)
        if causal:
            s = torch.where(kpos[None, :] <= qpos[:, None], s, float("-inf"))
        new_max = torch.maximum(run_max, s.amax(-1))
        shift = torch.where(torch.isinf(new_max), 0.0, new_max)
        corr = torch.exp(run_max - shift)
        p = torch.exp(s - shift[..., None])
        denom = denom * corr + p.sum(-1)
        out = out * corr[..., None] + torch.einsum("...qk,...kv->...qv", p, vb)
        run_max = new_max
    return (out / denom[..., None]).to(dtype)


class KVCache:
    def __init__(self):
        self.ks, self.vs = [], []

    def append(self, k, v):
        self.ks.append(k)
        self.vs.append(v)
        return torch.cat(self.ks, dim=-2), torch.cat(self.vs, dim=-2)

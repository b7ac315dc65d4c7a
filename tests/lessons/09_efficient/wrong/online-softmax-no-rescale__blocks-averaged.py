# grade: tiled_attention
import math

import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    dt = torch.promote_types(q.dtype, torch.float32)
    qf = q.to(dt)
    Lk = k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    out = 0
    nb = 0
    for start in range(0, Lk, block_size):  # each block its own softmax, then the mean
        kb = k[..., start : start + block_size, :].to(dt)
        s = (qf @ kb.transpose(-2, -1)) * scale
        p = torch.exp(s - s.amax(-1, keepdim=True))
        out = out + (p / p.sum(-1, keepdim=True)) @ v[..., start : start + block_size, :].to(dt)
        nb += 1
    out = out / nb
    return out.to(q.dtype)

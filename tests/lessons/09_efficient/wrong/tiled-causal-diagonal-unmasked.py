# grade: tiled_attention
import math

import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    dt = torch.promote_types(q.dtype, torch.float32)
    Lq, Lk = q.shape[-2], k.shape[-2]
    outs = []
    for qs in range(0, Lq, block_size):  # query blocks outer, key blocks inner (FlashAttention-2)
        qb = q[..., qs : qs + block_size, :].to(dt) / math.sqrt(q.shape[-1])
        qe = qs + qb.shape[-2]
        m = torch.full((*qb.shape[:-1], 1), float("-inf"), dtype=dt, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=dt, device=q.device)
        for ks in range(0, Lk, block_size):
            if causal and ks >= qe:
                break  # this key block and the later ones are all in the future
            kb = k[..., ks : ks + block_size, :].to(dt)
            vb = v[..., ks : ks + block_size, :].to(dt)
            s = qb @ kb.transpose(-2, -1)
            if causal and ks > qs:  # "only the blocks past the diagonal need the mask"
                i = torch.arange(qs, qe, device=q.device)[:, None]
                j = torch.arange(ks, ks + kb.shape[-2], device=q.device)[None, :]
                s = s.masked_fill(j > i, float("-inf"))
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            c = torch.exp(m - m_new)
            l = c * l + p.sum(-1, keepdim=True)
            acc = c * acc + p @ vb
            m = m_new
        outs.append(acc / l)
    return torch.cat(outs, dim=-2).to(q.dtype)

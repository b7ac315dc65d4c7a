# grade: tiled_attention
# Trial 38 (a learner's lesson 09): the block's max is taken before the causal mask, so a future key
# scoring far above the visible ones makes their weights underflow to 0.
import math

import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    """The online softmax of the lesson, with its running max kept wrong."""
    dt = torch.promote_types(q.dtype, torch.float32)
    Lq, Lk = q.shape[-2], k.shape[-2]
    qf = q.to(dt) / math.sqrt(q.shape[-1])
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=dt, device=q.device)
    l = torch.zeros((*q.shape[:-1], 1), dtype=dt, device=q.device)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=dt, device=q.device)
    qi = torch.arange(Lq, device=q.device).unsqueeze(-1)
    for start in range(0, Lk, block_size):
        kb = k[..., start : start + block_size, :].to(dt)
        vb = v[..., start : start + block_size, :].to(dt)
        s = qf @ kb.transpose(-2, -1)
        raw_max = s.amax(-1, keepdim=True)
        if causal:
            kj = torch.arange(start, start + kb.shape[-2], device=q.device)
            s = s.masked_fill(kj > qi, float("-inf"))
        m_new = torch.maximum(m, raw_max)
        m_safe = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        c = torch.exp(m - m_safe)
        p = torch.exp(s - m_safe)
        l = c * l + p.sum(-1, keepdim=True)
        acc = c * acc + p @ vb
        m = m_new
    out = acc / torch.where(l > 0, l, torch.ones_like(l))  # a row with no visible key: 0
    return out.to(q.dtype)

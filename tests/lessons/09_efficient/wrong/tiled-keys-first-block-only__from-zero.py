# grade: tiled_attention
import math

import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    out_dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    scale = 1.0 / math.sqrt(q.size(-1))
    Lq, Lk = q.size(-2), k.size(-2)
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=work, device=q.device)
    l = torch.zeros(q.shape[:-1] + (1,), dtype=work, device=q.device)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=work, device=q.device)
    q_pos = torch.arange(Lq, device=q.device).unsqueeze(1)
    for start in range(0, Lk, block_size):
        end = min(start + block_size, Lk)
        if causal and start > Lq - 1:
            break
        s = (q @ k[..., 0 : end - start, :].transpose(-2, -1)) * scale  # keys from 0
        if causal:
            k_pos = torch.arange(start, end, device=q.device).unsqueeze(0)
            s = s.masked_fill(k_pos > q_pos, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        m_safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - m_safe)
        correction = torch.exp(m - m_safe)
        l = l * correction + p.sum(dim=-1, keepdim=True)
        acc = acc * correction + p @ v[..., start:end, :]
        m = m_new
    out = acc / torch.where(l == 0, torch.ones_like(l), l)
    return out.to(out_dtype)

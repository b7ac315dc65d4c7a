# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype
    q, k, v = q.float(), k.float(), v.float()  # float64 too: cast down, then back
    Lq, Lk = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    m = torch.full((*q.shape[:-1], 1), float("-inf"), device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], device=q.device)
    rows = torch.arange(Lq, device=q.device)[:, None]
    for start in range(0, Lk, block_size):
        end = min(start + block_size, Lk)
        s = q @ k[..., start:end, :].transpose(-2, -1) * scale
        if causal:
            cols = torch.arange(start, end, device=q.device)[None, :]
            s = s.masked_fill(cols > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        m_safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - m_safe)
        alpha = torch.exp(m - m_safe)
        l = alpha * l + p.sum(-1, keepdim=True)
        acc = alpha * acc + p @ v[..., start:end, :]
        m = m_new
    return (acc / l).to(dtype)

# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype
    work = torch.float32 if dtype == torch.float16 else dtype  # bfloat16 "has float32's range"
    q, k, v = q.to(work), k.to(work), v.to(work)
    Lq, Lk = q.shape[-2], k.shape[-2]
    q = q * q.shape[-1] ** -0.5
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=work, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=work, device=q.device)
    rows = torch.arange(Lq, device=q.device)[:, None]
    for start in range(0, Lk, block_size):
        end = min(start + block_size, Lk)
        s = q @ k[..., start:end, :].transpose(-2, -1)
        if causal:
            s = s.masked_fill(torch.arange(start, end, device=q.device) > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        m_safe = torch.where(m_new.isneginf(), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - m_safe)
        alpha = torch.exp(m - m_safe)
        l = alpha * l + p.sum(-1, keepdim=True)
        acc = alpha * acc + p @ v[..., start:end, :]
        m = m_new
    return (acc / l).to(dtype)

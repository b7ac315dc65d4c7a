# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    scale = q.shape[-1] ** -0.5
    Lq, Lk = q.shape[-2], k.shape[-2]
    n = max(Lk // block_size, 1)
    kb = k.reshape(*k.shape[:-2], n, block_size, k.shape[-1])  # whole blocks only
    vb = v.reshape(*v.shape[:-2], n, block_size, v.shape[-1])
    m = torch.full((*q.shape[:-1], 1), float("-inf"), device=q.device, dtype=q.dtype)
    l = torch.zeros_like(m)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], device=q.device, dtype=q.dtype)
    rows = torch.arange(Lq, device=q.device)[:, None]
    for j in range(n):
        s = q @ kb[..., j, :, :].transpose(-2, -1) * scale
        if causal:
            cols = torch.arange(j * block_size, (j + 1) * block_size, device=q.device)[None, :]
            s = s.masked_fill(cols > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l = alpha * l + p.sum(-1, keepdim=True)
        o = alpha * o + p @ vb[..., j, :, :]
        m = m_new
    return o / l

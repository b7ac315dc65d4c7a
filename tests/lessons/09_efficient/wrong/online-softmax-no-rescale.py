# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    scale = q.shape[-1] ** -0.5
    Lq, Lk = q.shape[-2], k.shape[-2]
    row_max = torch.full(q.shape[:-1] + (1,), float("-inf"), device=q.device, dtype=q.dtype)
    row_sum = torch.zeros_like(row_max)
    out = torch.zeros(q.shape[:-1] + (v.shape[-1],), device=q.device, dtype=q.dtype)
    qi = torch.arange(Lq, device=q.device)[:, None]
    for s in range(0, Lk, block_size):
        kb, vb = k[..., s : s + block_size, :], v[..., s : s + block_size, :]
        scores = q @ kb.transpose(-2, -1) * scale
        if causal:
            kj = torch.arange(s, s + kb.shape[-2], device=q.device)[None, :]
            scores = scores.masked_fill(kj > qi, float("-inf"))
        new_max = torch.maximum(row_max, scores.amax(-1, keepdim=True))
        p = torch.exp(scores - new_max)
        row_sum = row_sum * torch.exp(row_max - new_max) + p.sum(-1, keepdim=True)
        out = out + p @ vb  # accumulate
        row_max = new_max
    return out / row_sum

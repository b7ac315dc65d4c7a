# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    """Tiles over the queries: each tile of queries sees all the keys at once."""
    dtype = q.dtype
    q, k, v = q.float(), k.float(), v.float()
    Lq, Lk = q.shape[-2], k.shape[-2]
    outs = []
    for start in range(0, Lq, block_size):
        qb = q[..., start : start + block_size, :]
        s = qb @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
        if causal:
            rows = torch.arange(start, start + qb.shape[-2], device=q.device)[:, None]
            s = s.masked_fill(torch.arange(Lk, device=q.device)[None, :] > rows, float("-inf"))
        outs.append(torch.softmax(s, dim=-1) @ v)
    return torch.cat(outs, dim=-2).to(dtype)

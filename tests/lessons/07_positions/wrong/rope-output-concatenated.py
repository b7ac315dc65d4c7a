# grade: apply_rope
import torch


def apply_rope(x, positions=None, base=10000.0):
    L, d = x.shape[-2], x.shape[-1]
    p = torch.arange(L, device=x.device) if positions is None else positions
    theta = p[:, None].to(torch.float32) * base ** (-torch.arange(0, d, 2, device=x.device) / d)
    a, b = x[..., 0::2], x[..., 1::2]
    c, s = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    return torch.cat([a * c - b * s, a * s + b * c], -1)

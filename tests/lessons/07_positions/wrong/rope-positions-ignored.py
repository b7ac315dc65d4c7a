# grade: apply_rope
import torch


def apply_rope(x, positions=None, base=10000.0):
    L, d = x.shape[-2], x.shape[-1]
    positions = torch.arange(L, device=x.device)
    inv_freq = base ** (-torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    angle = positions.float()[:, None] * inv_freq
    c, s = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    a, b = x[..., ::2], x[..., 1::2]
    return torch.stack([a * c - b * s, a * s + b * c], dim=-1).flatten(-2)

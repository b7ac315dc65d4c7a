# grade: apply_rope
import torch


def apply_rope(x, base=10000.0, positions=None):
    L, d = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(L, device=x.device)
    inv_freq = base ** (-torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    angles = positions.to(torch.float32)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), -1).flatten(-2)

# grade: apply_rope
# cos and sin swapped in the first component only: x1 sin - x2 cos.
import torch


def apply_rope(x, positions=None, base=10000.0):
    L, d = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(L, device=x.device)
    inv_freq = base ** (-torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    angle = positions.float()[:, None] * inv_freq
    c, s = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * s - x2 * c, x1 * s + x2 * c], -1).flatten(-2)

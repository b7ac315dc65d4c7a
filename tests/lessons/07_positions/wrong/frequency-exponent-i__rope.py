# grade: apply_rope
import torch


def apply_rope(x, positions=None, base=10000.0):
    L, d = x.shape[-2:]
    if positions is None:
        positions = torch.arange(L, device=x.device)
    i = torch.arange(d // 2, device=x.device, dtype=torch.float32)
    theta = positions[:, None].float() * base ** (-i / d)
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)
    return out.reshape(x.shape)

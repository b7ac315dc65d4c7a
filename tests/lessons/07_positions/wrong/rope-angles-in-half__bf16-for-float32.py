# grade: apply_rope
import torch

def apply_rope(x, positions=None, base=10000.0):
    L, d = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(L, device=x.device)
    theta = base ** (-torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    ang = (positions.to(device=x.device, dtype=torch.bfloat16)[:, None] * theta[None, :].to(torch.bfloat16)).float()
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)

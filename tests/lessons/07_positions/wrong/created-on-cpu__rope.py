# grade: apply_rope
import torch


def apply_rope(x, positions=None, base=10000.0):
    seq_len, d = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(seq_len)
    freqs = 1.0 / base ** (torch.arange(0, d, 2).float() / d)
    angles = torch.outer(positions.float(), freqs)  # in float32; cos and sin cast afterwards
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x_even, x_odd = x[..., ::2], x[..., 1::2]
    rotated = torch.stack([x_even * cos - x_odd * sin, x_even * sin + x_odd * cos], dim=-1)
    return rotated.flatten(-2)

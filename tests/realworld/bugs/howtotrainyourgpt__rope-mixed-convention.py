# Source: raiyanyahya/how-to-train-your-gpt, chapters/04_positional_encoding.md; bug report
# https://github.com/raiyanyahya/how-to-train-your-gpt/issues/6: `emb =
# freqs.repeat_interleave(2, dim=-1)` (adjacent-pair frequencies) combined with a split-half
# rotate_half, so x[0] (frequency theta_0) is rotated together with x[d/2].
# Reproduced in the contract's terms (apply_rope on (..., L, d)).
# expect: rope-half-split
# grade: apply_rope
import torch


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat([-x2, x1], dim=-1)


def apply_rope(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if positions is None:
        positions = torch.arange(x.shape[-2], device=x.device)
    freqs = 1.0 / (base ** (torch.arange(0, d, 2, device=x.device).float() / d))
    angles = positions.float()[:, None] * freqs[None, :]
    emb = angles.repeat_interleave(2, dim=-1)  # [θ0, θ0, θ1, θ1, ...]
    return x * emb.cos().to(x.dtype) + rotate_half(x) * emb.sin().to(x.dtype)

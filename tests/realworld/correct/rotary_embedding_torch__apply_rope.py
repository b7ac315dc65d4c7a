# Source: lucidrains/rotary-embedding-torch, rotary_embedding_torch/rotary_embedding_torch.py
# (v0.6), the default interleaved layout: `inv_freq = 1. / (theta ** (torch.arange(0, dim,
# 2)[:(dim // 2)].float() / dim))`, `freqs = einsum('..., f -> ... f', t.type(freqs.dtype),
# freqs)`, `freqs = repeat(freqs, '... n -> ... (n r)', r = 2)`; rotate_half: `x =
# rearrange(x, '... (d r) -> ... d r', r = 2)`, `x1, x2 = x.unbind(dim = -1)`, `x =
# torch.stack((-x2, x1), dim = -1)`, `return rearrange(x, '... d r -> ... (d r)')`;
# apply_rotary_emb: `t = (t * freqs.cos() * scale) + (rotate_half(t) * freqs.sin() * scale)`,
# `return out.type(dtype)`.
# Adapted to the contract: einops' rearrange/repeat written as unflatten/flatten and
# repeat_interleave (einops is not installed); theta is `base`; positions default to 0..L-1
# (RotaryEmbedding.rotate_queries_or_keys uses arange(seq_len)); no partial rotation
# (start_index 0, rot_dim = d), scale 1; the angles in float32 as the source computes them.
# Kept: interleaved pairs (2i, 2i+1), rotate_half as stack((-x2, x1)), t * cos + rotate_half(t) *
# sin, the result cast back to the input dtype.
# grade: apply_rope
import torch


def rotate_half(x):
    x = x.unflatten(-1, (-1, 2))  # '... (d r) -> ... d r', r = 2
    x1, x2 = x.unbind(dim=-1)
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(start_dim=-2)  # '... d r -> ... (d r)'


def apply_rope(x, positions=None, base=10000.0):
    dim = x.shape[-1]
    dtype = x.dtype
    if positions is None:
        positions = torch.arange(x.shape[-2], device=x.device)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, device=x.device)[: (dim // 2)].float() / dim))
    freqs = torch.einsum("..., f -> ... f", positions.type(inv_freq.dtype), inv_freq)
    freqs = freqs.repeat_interleave(2, dim=-1)  # '... n -> ... (n r)', r = 2
    out = (x * freqs.cos()) + (rotate_half(x) * freqs.sin())
    return out.type(dtype)

# Source: huggingface/transformers, src/transformers/models/roformer/modeling_roformer.py,
# RoFormerSinusoidalPositionalEmbedding and RoFormerSelfAttention.apply_rotary_position_embeddings
# (sin, cos = sinusoidal_pos.chunk(2, dim=-1); sin_pos = torch.stack([sin, sin], dim=-1)
# .reshape_as(sinusoidal_pos); rotate_half_query = torch.stack([-q[..., 1::2], q[..., ::2]],
# dim=-1).reshape_as(q)), RoFormer's interleaved pairs as the contract asks.
# Adapted to the contract: one function apply_rope(x, positions, base) that builds the
# sinusoidal table for the given positions (in float32, cast to x's dtype) instead of taking it.
# grade: apply_rope
import torch


def apply_rope(x, positions=None, base=10000.0):
    seq_len, dim = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(seq_len, device=x.device)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, device=x.device, dtype=torch.float32) / dim))
    sinusoid_inp = positions.to(torch.float32)[:, None] * inv_freq[None, :]
    sinusoidal_pos = torch.cat([sinusoid_inp.sin(), sinusoid_inp.cos()], dim=-1).to(x.dtype)
    # sin [seq_len, embed_size_per_head//2] => sin_pos [seq_len, embed_size_per_head]
    sin, cos = sinusoidal_pos.chunk(2, dim=-1)
    sin_pos = torch.stack([sin, sin], dim=-1).reshape(sinusoidal_pos.shape)
    cos_pos = torch.stack([cos, cos], dim=-1).reshape(sinusoidal_pos.shape)
    rotate_half_x = torch.stack([-x[..., 1::2], x[..., ::2]], dim=-1).reshape_as(x)
    return x * cos_pos + rotate_half_x * sin_pos

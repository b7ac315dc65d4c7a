# Source: huggingface/transformers, src/transformers/models/gptj/modeling_gptj.py,
# create_sinusoidal_positions, rotate_every_two (torch.stack((-x2, x1), dim=-1).flatten(-2)) and
# apply_rotary_pos_emb (torch.repeat_interleave(sin[:, :, None, :], 2, 3)), GPT-J's interleaved
# pairs as the contract asks.
# Adapted to the contract: one function apply_rope(x, positions, base) over the last two dims
# (GPT-J indexes (batch, seq, head, dim) and a fixed position table); the table is built for the
# given positions in float32 and cast to x's dtype.
# grade: apply_rope
import torch


def create_sinusoidal_positions(positions, dim, base):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64, device=positions.device) / dim))
    sinusoid_inp = torch.einsum("i , j -> i j", positions.to(torch.float32), inv_freq).float()
    return torch.cat((torch.sin(sinusoid_inp), torch.cos(sinusoid_inp)), dim=1)


def rotate_every_two(x):
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)  # in einsum notation: rearrange(x, '... d j -> ... (d j)')


def apply_rope(x, positions=None, base=10000.0):
    if positions is None:
        positions = torch.arange(x.shape[-2], device=x.device)
    sincos = create_sinusoidal_positions(positions, x.shape[-1], base).to(x.dtype)
    sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
    sin = torch.repeat_interleave(sin, 2, -1)
    cos = torch.repeat_interleave(cos, 2, -1)
    return (x * cos) + (rotate_every_two(x) * sin)

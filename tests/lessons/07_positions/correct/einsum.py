# A learner who likes einsum, torch.where and building things from scratch.
# Lesson 07's exercises in this style. The whole style is every lesson's einsum.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
from torch import nn


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    p = torch.arange(max_len, dtype=torch.float64)
    i = torch.arange(d_model // 2, dtype=torch.float64)
    angle = torch.einsum("p,i->pi", p, 1.0 / 10000 ** (2 * i / d_model))
    return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1).float()


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        if x.size(-2) > self.embedding.num_embeddings:
            raise ValueError("too long")
        return x + self.embedding.weight[: x.size(-2)]


def apply_rope(x, positions=None, base=10000.0):
    *_, L, d = x.shape
    pos = torch.arange(L, device=x.device) if positions is None else positions.to(x.device)
    theta = torch.einsum("p,i->pi", pos.double(), base ** (-torch.arange(0, d, 2, device=x.device).double() / d))
    c, s = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    pairs = x.unflatten(-1, (d // 2, 2))
    a, b = pairs[..., 0], pairs[..., 1]
    return torch.stack([a * c - b * s, a * s + b * c], dim=-1).flatten(-2)

# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
# Lesson 07's exercises in this style. The whole style is every lesson's idioms.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model & 1:
        raise ValueError("d_model must be even")
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d_model, 2).float() / d_model))
    angles = torch.outer(torch.arange(max_len).float(), inv_freq)
    pe = torch.empty(max_len, d_model)
    pe[:, 0::2], pe[:, 1::2] = angles.sin(), angles.cos()
    return pe


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)
        self.register_buffer("positions", torch.arange(max_len), persistent=False)

    def forward(self, x):
        if x.size(1) > self.positions.numel():
            raise ValueError("input longer than max_len")
        return x + self.embedding(self.positions[: x.size(1)])


def apply_rope(x, positions=None, base=10000.0):
    L, d = x.shape[-2:]
    if positions is None:
        positions = torch.arange(L, device=x.device)
    freqs = 1.0 / base ** (torch.arange(0, d, 2, device=x.device).float() / d)
    angles = torch.outer(positions.float(), freqs)
    rot = torch.polar(torch.ones_like(angles), angles)  # e^{i theta}, (L, d/2)
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * rot).flatten(-2).type_as(x)

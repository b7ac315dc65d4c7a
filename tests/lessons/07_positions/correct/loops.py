# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 07's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError(f"d_model={d_model} is odd")
    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / (10000 ** (i / d_model))
            pe[pos, i] = math.sin(angle)
            pe[pos, i + 1] = math.cos(angle)
    return pe


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.max_len:
            raise ValueError(f"sequence of length {seq_len} is longer than max_len={self.max_len}")
        pos = torch.arange(seq_len, device=self.embedding.weight.device)
        return x + self.embedding(pos).unsqueeze(0)


def apply_rope(x, positions=None, base=10000.0):
    seq_len, d = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(seq_len, device=x.device)
    out = x.clone()
    for i in range(d // 2):
        theta = positions.to(torch.float64) * base ** (-2 * i / d)
        c = torch.cos(theta).to(device=x.device, dtype=x.dtype)
        s = torch.sin(theta).to(device=x.device, dtype=x.dtype)
        a, b = x[..., 2 * i], x[..., 2 * i + 1]
        out[..., 2 * i] = a * c - b * s
        out[..., 2 * i + 1] = a * s + b * c
    return out

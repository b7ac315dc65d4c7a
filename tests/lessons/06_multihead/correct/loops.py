# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 06's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def split_heads(x, num_heads):
    d_head = x.shape[-1] // num_heads
    heads = [x[:, :, i * d_head : (i + 1) * d_head] for i in range(num_heads)]
    return torch.stack(heads, dim=1)


def merge_heads(x):
    return torch.cat([x[:, i] for i in range(x.shape[1])], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None and value is None:
            key = value = query
        elif value is None:
            value = key
        q, k, v = self.w_q(query), self.w_k(key), self.w_v(value)
        d_head = q.shape[-1] // self.num_heads
        if mask is not None:  # (B, h, Lq, Lk): each head takes its own slice
            shape = (q.shape[0], self.num_heads, q.shape[-2], k.shape[-2])
            mask = torch.broadcast_to(mask, shape)
        outs, weights = [], []
        for h in range(self.num_heads):
            sl = slice(h * d_head, (h + 1) * d_head)
            m = None if mask is None else mask[:, h]
            o, w = scaled_dot_product_attention(q[..., sl], k[..., sl], v[..., sl], m)
            outs.append(o)
            weights.append(w)
        return self.w_o(torch.cat(outs, dim=-1)), torch.stack(weights, dim=1)


def mha_num_parameters(d_model, num_heads, bias=False):
    count = 0
    for _ in ("q", "k", "v", "o"):
        count += d_model * d_model
        if bias:
            count += d_model
    return count

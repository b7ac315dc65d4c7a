# A learner who likes einsum, torch.where and building things from scratch.
# Lesson 06's exercises in this style. The whole style is every lesson's einsum.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
from torch import nn


def split_heads(x, num_heads):
    B, L, D = x.shape
    return torch.stack(x.split(D // num_heads, dim=-1), dim=1)


def merge_heads(x):
    return torch.cat(x.unbind(dim=1), dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.h, self.d_head = num_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self.w_q(query).unflatten(-1, (self.h, self.d_head))  # B L H E
        k = self.w_k(key).unflatten(-1, (self.h, self.d_head))
        v = self.w_v(value).unflatten(-1, (self.h, self.d_head))
        scores = torch.einsum("blhe,bmhe->bhlm", q, k) / math.sqrt(self.d_head)
        if mask is not None and mask.dtype == torch.bool:
            scores = torch.where(mask, scores, float("-inf"))
        elif mask is not None:  # a float mask: biases added to the scores, -inf blocks
            scores = scores + mask
        weights = softmax(scores, dim=-1)
        out = torch.einsum("bhlm,bmhe->blhe", weights, v).flatten(-2)
        return self.w_o(out), weights


def mha_num_parameters(d_model, num_heads, bias=False):
    # the shapes of w_q, w_k, w_v, w_o's parameters (the lesson asks for the formula, not the module)
    shapes = [(d_model, d_model)] * 4 + [(d_model,)] * (4 if bias else 0)
    return sum(math.prod(shape) for shape in shapes)

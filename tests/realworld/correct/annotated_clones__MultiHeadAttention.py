# Source: harvardnlp/annotated-transformer, the_annotated_transformer.py, def clones and class
# MultiHeadedAttention (self.linears = clones(nn.Linear(d_model, d_model), 4); the q/k/v
# projections zip over self.linears; self.linears[-1](x) at the end).
# Adapted to the contract: the four clones kept in self.linears and exposed under the contract's
# names as read-only properties w_q, w_k, w_v, w_o (each is an nn.Linear(d_model, d_model,
# bias=bias)); the argument check raises ValueError; attention() as in the Annotated Transformer
# with the contract's mask.
# grade: MultiHeadAttention
import copy
import math

import torch
import torch.nn as nn


def clones(module, N):
    "Produce N identical layers."
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


def attention(query, key, value, mask=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None and mask.dtype == torch.bool:
        scores = scores.masked_fill(~mask, float("-inf"))
    elif mask is not None:
        scores = scores + mask.to(scores.dtype)
    p_attn = scores.softmax(dim=-1)
    p_attn = torch.where(torch.isneginf(scores).all(-1, keepdim=True), 0.0, p_attn)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not a multiple of num_heads={num_heads}")
        self.d_k = d_model // num_heads
        self.h = num_heads
        self.linears = clones(nn.Linear(d_model, d_model, bias=bias), 4)

    w_q = property(lambda self: self.linears[0])
    w_k = property(lambda self: self.linears[1])
    w_v = property(lambda self: self.linears[2])
    w_o = property(lambda self: self.linears[3])

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        nbatches = query.size(0)
        query, key, value = [
            lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
            for lin, x in zip(self.linears, (query, key, value))
        ]
        x, self.attn = attention(query, key, value, mask=mask)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        return self.linears[-1](x), self.attn

# grade: TinyTransformer
# TinyTransformer is always causal: its blocks' attention zeroes fully masked rows in place on the
# softmax's output (masked_fill_), so backward() raises when the model trains.
import math
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model {d_model} must be a multiple of num_heads {num_heads}")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is None:
            w = torch.softmax(s, dim=-1)
            return self.w_o(merge_heads(w @ v)), w
        if mask.dtype != torch.bool:
            s = s + mask.to(s.dtype)
            allowed = ~torch.isneginf(mask)
        else:
            s = s.masked_fill(~mask, float("-inf"))
            allowed = mask
        w = torch.softmax(s, dim=-1)
        w.masked_fill_(~allowed.any(-1, keepdim=True), 0.0)
        return self.w_o(merge_heads(w @ v)), w

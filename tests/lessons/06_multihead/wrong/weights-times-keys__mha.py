# grade: MultiHeadAttention
import math

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        self.h = num_heads
        self.d_head = d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, Lq, _ = query.shape
        Lk = key.shape[1]
        q = self.w_q(query).view(B, Lq, self.h, self.d_head).transpose(1, 2)
        k = self.w_k(key).view(B, Lk, self.h, self.d_head).transpose(1, 2)
        v = self.w_v(value).view(B, Lk, self.h, self.d_head).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            if mask.dtype == torch.bool:
                scores = scores.masked_fill(~mask, float("-inf"))
            else:
                scores = scores + mask
        weights = softmax(scores, dim=-1)
        out = (weights @ k).transpose(1, 2).reshape(B, Lq, -1)
        return self.w_o(out), weights

# Source: hkproj/pytorch-transformer (Umar Jamil, "Coding a Transformer from scratch"), model.py,
# class MultiHeadAttentionBlock: `assert d_model % h == 0`, `self.w_q = nn.Linear(d_model,
# d_model, bias=False) # Wq` (likewise w_k, w_v, w_o), the static method
#   def attention(query, key, value, mask, dropout):
#       d_k = query.shape[-1]
#       attention_scores = (query @ key.transpose(-2, -1)) / math.sqrt(d_k)
#       if mask is not None:
#           attention_scores.masked_fill_(mask == 0, -1e9)
#       attention_scores = attention_scores.softmax(dim=-1)
#       ...
#       return (attention_scores @ value), attention_scores
# and forward's `query.view(query.shape[0], query.shape[1], self.h, self.d_k).transpose(1, 2)`,
# `x.transpose(1, 2).contiguous().view(x.shape[0], -1, self.h * self.d_k)`, `self.w_o(x)`.
# Adapted to the contract: forward(query, key=None, value=None, mask=None) with key/value
# defaulting as COURSE_SPEC says (Umar's forward(q, k, v, mask) takes all four); bias is the
# argument (Umar's is always False); the fill is -inf, not -1e9 (a float16 tensor cannot hold
# -1e9: [fill-overflows-fp16]), rows with every key masked give zeros; a float mask is added to
# the scores (Umar's `mask == 0` would read its 0 entries, the allowed ones, as masked); no
# dropout argument; returns (output, weights) instead of storing self.attention_scores.
# Kept: the names w_q/w_k/w_v/w_o, the assert, the static attention method, masked_fill_ in place
# on the scores it has just computed, view/transpose heads.
# grade: MultiHeadAttention
import math

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, bias: bool = False) -> None:
        super().__init__()
        self.d_model = d_model  # Embedding vector size
        self.h = num_heads  # Number of heads
        # Make sure d_model is divisible by h
        assert d_model % num_heads == 0, "d_model is not divisible by h"
        self.d_k = d_model // num_heads  # Dimension of vector seen by each head
        self.w_q = nn.Linear(d_model, d_model, bias=bias)  # Wq
        self.w_k = nn.Linear(d_model, d_model, bias=bias)  # Wk
        self.w_v = nn.Linear(d_model, d_model, bias=bias)  # Wv
        self.w_o = nn.Linear(d_model, d_model, bias=bias)  # Wo

    @staticmethod
    def attention(query, key, value, mask):
        d_k = query.shape[-1]
        # (batch, h, seq_len, d_k) --> (batch, h, seq_len, seq_len)
        attention_scores = (query @ key.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None and mask.dtype == torch.bool:
            # Write a very low value (indicating -inf) to the positions where mask == 0
            attention_scores.masked_fill_(mask == 0, float("-inf"))
        elif mask is not None:
            attention_scores = attention_scores + mask.to(attention_scores.dtype)
        attention_scores = attention_scores.softmax(dim=-1)  # (batch, h, seq_len, seq_len)
        attention_scores = attention_scores.nan_to_num(0.0)  # rows with no key to attend to
        return (attention_scores @ value), attention_scores

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        query = self.w_q(query)  # (batch, seq_len, d_model) --> (batch, seq_len, d_model)
        key = self.w_k(key)
        value = self.w_v(value)

        # (batch, seq_len, d_model) --> (batch, seq_len, h, d_k) --> (batch, h, seq_len, d_k)
        query = query.view(query.shape[0], query.shape[1], self.h, self.d_k).transpose(1, 2)
        key = key.view(key.shape[0], key.shape[1], self.h, self.d_k).transpose(1, 2)
        value = value.view(value.shape[0], value.shape[1], self.h, self.d_k).transpose(1, 2)

        x, attention_scores = MultiHeadAttention.attention(query, key, value, mask)

        # (batch, h, seq_len, d_k) --> (batch, seq_len, h, d_k) --> (batch, seq_len, d_model)
        x = x.transpose(1, 2).contiguous().view(x.shape[0], -1, self.h * self.d_k)
        return self.w_o(x), attention_scores

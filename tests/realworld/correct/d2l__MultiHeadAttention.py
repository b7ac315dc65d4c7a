# Source: d2l-ai/d2l-en, d2l/torch.py, classes MultiHeadAttention (W_q, W_k, W_v, W_o
# nn.LazyLinear; transpose_qkv/transpose_output) and DotProductAttention
# (torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d); masked_softmax).
# Adapted to the contract: W_* renamed w_* as nn.Linear(d_model, d_model, bias=bias) (LazyLinear
# has no weights to load before a first call); forward's arguments named query/key/value (the
# contract's keywords); heads kept as a 4-D (B, h, L, d) tensor and
# torch.matmul instead of bmm on (B*h, L, d); d2l's valid_lens replaced by the contract's mask
# with -inf instead of -1e6 (float16) and zero rows where every key is masked; dropout dropped.
# grade: MultiHeadAttention
import math

import torch
from torch import nn


class DotProductAttention(nn.Module):
    """Scaled dot product attention."""

    def forward(self, queries, keys, values, mask=None):
        d = queries.shape[-1]
        scores = torch.matmul(queries, keys.transpose(-2, -1)) / math.sqrt(d)
        if mask is not None and mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, -math.inf)
        elif mask is not None:
            scores = scores + mask.to(scores.dtype)
        self.attention_weights = nn.functional.softmax(scores, dim=-1).nan_to_num(0.0)
        return torch.matmul(self.attention_weights, values)


class MultiHeadAttention(nn.Module):
    """Multi-head attention."""

    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("num_hiddens must be divisible by num_heads")
        self.num_heads = num_heads
        self.attention = DotProductAttention()
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        queries = self.transpose_qkv(self.w_q(query))
        keys = self.transpose_qkv(self.w_k(key))
        values = self.transpose_qkv(self.w_v(value))
        output = self.attention(queries, keys, values, mask)
        output_concat = self.transpose_output(output)
        return self.w_o(output_concat), self.attention.attention_weights

    def transpose_qkv(self, X):
        """Transposition for parallel computation of multiple attention heads."""
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1)
        return X.permute(0, 2, 1, 3)

    def transpose_output(self, X):
        """Reverse the operation of transpose_qkv."""
        X = X.permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)

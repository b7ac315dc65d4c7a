# grade: MultiHeadAttention
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def _split(self, x, num_heads):
        B, L, D = x.shape
        return x.view(B, L, num_heads, D // num_heads).transpose(1, 2)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        d_head = query.shape[-1] // self.num_heads
        q = self._split(self.w_q(query), d_head)  # d_head where num_heads belongs
        k = self._split(self.w_k(key), d_head)
        v = self._split(self.w_v(value), d_head)
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        B, H, L, E = out.shape
        return self.w_o(out.transpose(1, 2).reshape(B, L, H * E)), weights

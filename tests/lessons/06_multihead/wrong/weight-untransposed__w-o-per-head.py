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
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        out, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, h, L, E)
        d_head = out.shape[-1]
        heads = [  # w_o before the merge: each head through its own rows of w_o, then summed
            out[:, i] @ self.w_o.weight[i * d_head : (i + 1) * d_head]
            for i in range(self.num_heads)
        ]
        out = torch.stack(heads, 1).sum(1)
        if self.w_o.bias is not None:
            out = out + self.w_o.bias
        return out, weights

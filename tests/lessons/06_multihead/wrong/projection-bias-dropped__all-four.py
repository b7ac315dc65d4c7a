# grade: MultiHeadAttention
# every projection as x @ W.T: all four biases dropped (trial 42)
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(query @ self.w_q.weight.T, self.num_heads)
        k = split_heads(key @ self.w_k.weight.T, self.num_heads)
        v = split_heads(value @ self.w_v.weight.T, self.num_heads)
        out, w = scaled_dot_product_attention(q, k, v, mask)
        return merge_heads(out) @ self.w_o.weight.T, w


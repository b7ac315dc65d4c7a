# Source: lucidrains/vit-pytorch, vit_pytorch/vit.py, class Attention before commit 85314cf
# (`self.scale = dim ** -0.5`, fused `to_qkv`, `dots = torch.matmul(q, k.transpose(-1, -2)) *
# self.scale`, softmax, `to_out`); bug report https://github.com/lucidrains/vit-pytorch/issues/65
# ("self.scale should be dim_head ** -0.5 ... dk should be the dimension of queries and keys";
# lucidrains: "this was my mistake ... fixed in the latest").
# Reproduced in the contract's terms: MultiHeadAttention with to_qkv split into w_q/w_k/w_v and
# to_out renamed w_o, einops' rearrange written as view/transpose, the contract's mask added;
# the scale is still the model width's, dim ** -0.5, not the head width's.
# expect: scaled-by-d-model
# grade: MultiHeadAttention
import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        dim = d_model
        self.heads = num_heads
        self.scale = dim**-0.5
        self.w_q = nn.Linear(dim, dim, bias=bias)
        self.w_k = nn.Linear(dim, dim, bias=bias)
        self.w_v = nn.Linear(dim, dim, bias=bias)
        self.w_o = nn.Linear(dim, dim, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        b, n, d = query.shape
        h = self.heads

        def heads(t):  # rearrange(t, 'b n (h d) -> b h n d', h = h)
            return t.view(t.shape[0], t.shape[1], h, -1).transpose(1, 2)

        q, k, v = heads(self.w_q(query)), heads(self.w_k(key)), heads(self.w_v(value))
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        if mask is not None and mask.dtype == torch.bool:
            dots = dots.masked_fill(~mask, float("-inf"))
        elif mask is not None:
            dots = dots + mask
        attn = dots.softmax(dim=-1).nan_to_num(0.0)
        out = torch.matmul(attn, v)
        out = out.transpose(1, 2).reshape(b, n, d)  # rearrange(out, 'b h n d -> b n (h d)')
        return self.w_o(out), attn

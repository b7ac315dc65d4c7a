# Source: tenstorrent/tt-metal, the CLIP zero-shot classification tutorial (ttnn/tutorials),
# MultiHeadAttention before PR #56789: the scores are scaled by 1 / sqrt(num_heads) though its own
# comment says 1 / sqrt(head_dim); bug report https://github.com/tenstorrent/tt-metal/pull/56789
# ("Scale CLIP attention by 1/sqrt(head_dim), not 1/sqrt(num_heads)": for ViT-B/32, 1/sqrt(12) =
# 0.289 where 1/8 = 0.125 was expected; the right prompt still won, so the bug went unnoticed).
# Reproduced in the contract's terms (torch instead of ttnn): MultiHeadAttention whose scores
# are multiplied by num_heads ** -0.5.
# expect: scaled-by-num-heads
# grade: MultiHeadAttention
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        b, lq, d = query.shape
        lk = key.shape[1]
        q = self.w_q(query).view(b, lq, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.w_k(key).view(b, lk, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.w_v(value).view(b, lk, self.num_heads, self.head_dim).transpose(1, 2)
        scale = 1.0 / (self.num_heads**0.5)  # scale by 1/sqrt(head_dim)
        scores = (q @ k.transpose(-2, -1)) * scale
        if mask is not None and mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        elif mask is not None:
            scores = scores + mask
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        out = (weights @ v).transpose(1, 2).reshape(b, lq, d)
        return self.w_o(out), weights

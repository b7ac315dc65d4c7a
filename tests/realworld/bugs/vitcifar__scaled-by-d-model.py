# Source: omihub777/ViT-CIFAR, layers.py, MultiHeadSelfAttention (self.sqrt_d =
# self.feats**0.5); bug report https://github.com/omihub777/ViT-CIFAR/pull/11 (closes #9): the
# scores are divided by sqrt(feats) = sqrt(d_model) instead of sqrt(feats // head).
# Reproduced in the contract's terms: MultiHeadAttention with q/k/v/o Linears renamed w_*,
# ViT-CIFAR's view/transpose and einsum, scaled by sqrt(d_model).
# expect: scaled-by-d-model
# grade: MultiHeadAttention
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("feats must be divisible by head")
        self.head = num_heads
        self.feats = d_model
        self.sqrt_d = self.feats**0.5
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        x = query
        key = x if key is None else key
        value = key if value is None else value
        b, n, f = x.size()
        s = key.size(1)
        q = self.w_q(x).view(b, n, self.head, self.feats // self.head).transpose(1, 2)
        k = self.w_k(key).view(b, s, self.head, self.feats // self.head).transpose(1, 2)
        v = self.w_v(value).view(b, s, self.head, self.feats // self.head).transpose(1, 2)
        score = torch.einsum("bhif, bhjf->bhij", q, k) / self.sqrt_d  # (b,h,n,n)
        if mask is not None:
            score = score.masked_fill(~mask, float("-inf"))
        score = F.softmax(score, dim=-1).nan_to_num(0.0)
        attn = torch.einsum("bhij, bhjf->bihf", score, v)  # (b,n,h,f//h)
        o = self.w_o(attn.flatten(2))
        return o, score

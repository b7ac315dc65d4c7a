# Source: jsbaan/transformer-from-scratch, multi_head_attention.py (commit 5f92dc5): _qkv_proj
# returns `q, k, v` and forward unpacks `q, v, k = self._qkv_proj(...)`; bug report
# https://github.com/jsbaan/transformer-from-scratch/issues/1 ("Returned q,k,v but assigned
# q,v,k?"; the author: "You are totally right ... The change above does effectively nothing",
# since a freshly trained fused projection does not care which chunk is called k).
# Reproduced in the contract's terms, where the weights are named and loaded by name: a
# SelfAttention that unpacks its projections as (q, v, k), so keys come from w_v and values from
# w_k (with d_k != d_v the product does not even fit).
# expect: qkv-order-swapped
# grade: SelfAttention
import math

import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def _qkv_proj(self, x):
        return self.w_q(x), self.w_k(x), self.w_v(x)

    def forward(self, x, mask=None):
        q, v, k = self._qkv_proj(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None and mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        elif mask is not None:
            scores = scores + mask
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        return weights @ v, weights

# Source: karpathy/nanoGPT, model.py, class CausalSelfAttention (the non-flash "manual" path).
# Adapted to the contract: the fused c_attn split into w_q/w_k/w_v and c_proj renamed w_o (the
# grader loads weights by these names); the fixed causal `bias` buffer replaced by the `mask`
# argument (True = attend); query/key/value arguments for cross-attention; rows with every key
# masked give zeros (nanoGPT never has such rows); dropout dropped (no dropout argument).
# Kept: `assert n_embd % n_head == 0`, view/transpose heads, masked_fill(-inf), F.softmax.
# grade: MultiHeadAttention
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        assert d_model % num_heads == 0
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.n_head = num_heads
        self.n_embd = d_model

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, T, C = query.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        S = key.size(1)
        q = self.w_q(query).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = self.w_k(key).view(B, S, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, S, hs)
        v = self.w_v(value).view(B, S, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, S, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if mask is not None and mask.dtype == torch.bool:
            att = att.masked_fill(~mask, float("-inf"))
        elif mask is not None:
            att = att + mask.to(att.dtype)
        att = F.softmax(att, dim=-1)
        att = att.masked_fill(att.isnan(), 0.0)  # rows with no key to attend to
        y = att @ v  # (B, nh, T, S) x (B, nh, S, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        y = self.w_o(y)
        return y, att

# Source: juho-lee/set_transformer, modules.py, class MAB (Q_.bmm(K_.transpose(1, 2)) /
# math.sqrt(self.dim_V) after torch.cat(Q.split(dim_split, 2), 0)); bug report
# https://github.com/juho-lee/set_transformer/issues/18: the per-head scores are scaled by
# sqrt(dim_V), the full width, instead of sqrt(dim_V // num_heads).
# Reproduced in the contract's terms: MultiHeadAttention with fc_q/fc_k/fc_v/fc_o renamed w_*,
# the MAB's split/cat head layout, the contract's mask; residual/LayerNorm of the MAB left out.
# expect: scaled-by-d-model
# grade: MultiHeadAttention
import math

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("dim_V must be divisible by num_heads")
        self.dim_V = d_model
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        Q = query
        K = Q if key is None else key
        V = K if value is None else value
        Q, K, V = self.w_q(Q), self.w_k(K), self.w_v(V)
        dim_split = self.dim_V // self.num_heads
        Q_ = torch.stack(Q.split(dim_split, 2), 1)
        K_ = torch.stack(K.split(dim_split, 2), 1)
        V_ = torch.stack(V.split(dim_split, 2), 1)
        S = Q_ @ K_.transpose(-2, -1) / math.sqrt(self.dim_V)
        if mask is not None:
            S = S.masked_fill(~mask, float("-inf"))
        A = torch.softmax(S, -1).nan_to_num(0.0)
        O = torch.cat((A @ V_).unbind(1), 2)
        return self.w_o(O), A

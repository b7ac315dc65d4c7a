# grade: SelfAttention
# NaN weights of fully masked rows set to 0 by index assignment, only when a mask is given.
import math
import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            s = s.masked_fill(~mask, float('-inf')) if mask.dtype == torch.bool else s + mask
        w = torch.softmax(s, dim=-1)
        if mask is not None:
            w[torch.isnan(w)] = 0.0
        return w @ v, w

# grade: SelfAttention
# The bool mask applied after the softmax and renormalised: equal on small scores, but a blocked
# key scoring far above the allowed ones leaves their weights 0 (then all zero).
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
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None and mask.dtype != torch.bool:
            scores = scores + mask
            mask = None
        weights = torch.softmax(scores, dim=-1)
        if mask is not None:
            weights = weights * mask
            total = weights.sum(-1, keepdim=True)
            weights = weights / torch.where(total == 0, torch.ones_like(total), total)
        return weights @ v, weights

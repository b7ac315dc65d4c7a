# A learner who likes einsum, torch.where and building things from scratch.
# Lesson 01's exercises in this style. The whole style is every lesson's einsum.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
from torch import nn


def project_qkv(x, w_q, w_k, w_v):
    q = torch.einsum("...ld,dk->...lk", x, w_q)
    k = torch.einsum("...ld,dk->...lk", x, w_k)
    v = torch.einsum("...ld,dv->...lv", x, w_v)
    return q, k, v


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q, self.w_k, self.w_v = (
            nn.Linear(d_model, d, bias=False) for d in (d_k, d_k, d_v)
        )

    def forward(self, x):
        return tuple(torch.einsum("...d,kd->...k", x, w.weight) for w in (self.w_q, self.w_k, self.w_v))

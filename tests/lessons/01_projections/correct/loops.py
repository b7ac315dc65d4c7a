# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 01's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def project_qkv(x, w_q, w_k, w_v):
    outs = []
    for w in (w_q, w_k, w_v):
        flat = x.reshape(-1, x.shape[-1])
        outs.append(torch.mm(flat, w).reshape(*x.shape[:-1], w.shape[-1]))
    return tuple(outs)


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x):
        return F.linear(x, self.w_q.weight), F.linear(x, self.w_k.weight), F.linear(x, self.w_v.weight)

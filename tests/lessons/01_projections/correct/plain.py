# A learner's straightforward solutions, written the way the notebooks suggest.
# Lesson 01's exercises in this style. The whole style is every lesson's plain.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def project_qkv(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x):
        return self.w_q(x), self.w_k(x), self.w_v(x)

# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 05's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        if mask.is_floating_point():
            scores = scores + mask.type_as(scores)
        else:
            scores = masked_scores(scores, mask)
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q = self.w_q(x)
        k = self.w_k(x)
        v = self.w_v(x)
        return scaled_dot_product_attention(q, k, v, mask)

# A learner's straightforward solutions, written the way the notebooks suggest.
# Lesson 05's exercises in this style. The whole style is every lesson's plain.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None and mask.dtype == torch.bool:
        scores = masked_scores(scores, mask)
    elif mask is not None:  # an additive float mask
        scores = scores + mask.to(scores.dtype)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.w_q(x), self.w_k(x), self.w_v(x), mask)

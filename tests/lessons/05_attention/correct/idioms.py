# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
# Lesson 05's exercises in this style. The whole style is every lesson's idioms.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        # a bool mask (True = may attend) becomes additive: 0 where allowed, -inf where not
        if mask.dtype == torch.bool:
            mask = torch.zeros_like(mask, dtype=scores.dtype).masked_fill(~mask, float("-inf"))
        scores = scores + mask.to(scores.dtype)
    weights = torch.softmax(scores.float(), dim=-1).to(q.dtype)  # softmax in float32
    weights = weights.nan_to_num(0.0)
    return weights @ v, weights


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.w_q(x), self.w_k(x), self.w_v(x), mask=mask)

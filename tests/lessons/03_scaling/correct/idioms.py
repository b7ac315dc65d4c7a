# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
# Lesson 03's exercises in this style. The whole style is every lesson's idioms.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_attention_scores(q, k):
    return torch.matmul(q, k.mT).div(q.size(-1) ** 0.5)


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q = torch.empty(num_samples, d_k).normal_(generator=generator)
    k = torch.empty(num_samples, d_k).normal_(generator=generator)
    return torch.var_mean((q * k).sum(1))[0].item()


def softmax_entropy(weights, dim=-1):
    return torch.special.xlogy(weights, weights).sum(dim).neg()

# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 03's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_attention_scores(q, k):
    return _bmm_scores(q, k, scale=1.0 / math.sqrt(q.shape[-1]))


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    total = torch.zeros(num_samples)
    for _ in range(d_k):
        total += torch.randn(num_samples, generator=generator) * torch.randn(num_samples, generator=generator)
    return torch.var(total).item()


def softmax_entropy(weights, dim=-1):
    w = weights.movedim(dim, -1)
    out = torch.zeros(w.shape[:-1], dtype=w.dtype, device=w.device)
    for i in range(w.shape[-1]):
        p = w[..., i]
        out -= torch.where(p > 0, p * torch.log(torch.where(p > 0, p, torch.ones_like(p))), torch.zeros_like(p))
    return out

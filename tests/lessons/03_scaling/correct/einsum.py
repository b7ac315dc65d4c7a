# A learner who likes einsum, torch.where and building things from scratch.
# Lesson 03's exercises in this style. The whole style is every lesson's einsum.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
from torch import nn


def scaled_attention_scores(q, k):
    return torch.einsum("...qd,...kd->...qk", q * q.shape[-1] ** -0.5, k)


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q, k = torch.randn(2, num_samples, d_k, generator=generator, dtype=torch.float64)
    dots = torch.einsum("nd,nd->n", q, k)
    mean = dots.mean()
    return float(((dots - mean) ** 2).sum() / (num_samples - 1))


def softmax_entropy(weights, dim=-1):
    plogp = torch.where(weights > 0, weights * torch.log(weights.clamp_min(torch.finfo(weights.dtype).tiny)), 0.0)
    return -plogp.sum(dim=dim)

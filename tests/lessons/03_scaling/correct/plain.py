# A learner's straightforward solutions, written the way the notebooks suggest.
# Lesson 03's exercises in this style. The whole style is every lesson's plain.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_attention_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q = torch.randn(num_samples, d_k, generator=generator)
    k = torch.randn(num_samples, d_k, generator=generator)
    return (q * k).sum(-1).var().item()


def softmax_entropy(weights, dim=-1):
    return -torch.xlogy(weights, weights).sum(dim)

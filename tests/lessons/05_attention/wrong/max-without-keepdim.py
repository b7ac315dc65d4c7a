# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    m = scores.max(dim=-1).values  # (..., Lq): no keepdim
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    s = e.sum(-1, keepdim=True)
    weights = e / torch.where(s == 0, torch.ones_like(s), s)
    return weights @ v, weights

# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None and mask.dtype == torch.bool:
        scores = scores.masked_fill(~mask, float("-inf"))
    elif mask is not None:
        scores = scores + mask.to(scores.dtype)
    m = scores.max()  # one max for the whole tensor
    if torch.isinf(m):
        m = torch.zeros_like(m)
    e = torch.exp(scores - m)
    s = e.sum(-1, keepdim=True)
    weights = torch.where(s == 0, torch.zeros_like(e), e / s)
    return weights @ v, weights

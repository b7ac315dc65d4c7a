# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None and mask.dtype == torch.bool:
        scores = scores.masked_fill(~mask, float("-inf"))
    elif mask is not None:
        scores = scores - mask  # an additive mask, subtracted
    weights = softmax(scores, dim=-1)
    return weights @ v, weights

# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        if q.dim() == 4 and mask.dim() == 3:  # (B, Lq, Lk) "for the heads" (trial 11)
            mask = mask.unsqueeze(1)
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask.to(scores.dtype)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights

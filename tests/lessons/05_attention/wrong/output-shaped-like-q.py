# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None and mask.dtype == torch.bool:
        scores = masked_scores(scores, mask)
    elif mask is not None:
        scores = scores + mask.to(scores.dtype)
    weights = softmax(scores, dim=-1)
    return (weights @ v).view(q.shape), weights  # the output "has q's shape"

# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1)
    if mask is not None and mask.dtype == torch.bool:
        scores = masked_scores(scores, mask)
    elif mask is not None:
        scores = scores + mask.to(scores.dtype)  # the bias added before the scale divides it
    weights = softmax(scores / math.sqrt(q.shape[-1]), dim=-1)
    return weights @ v, weights

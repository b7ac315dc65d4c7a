# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(v.size(-1))
    if mask is not None:
        scores = masked_scores(scores, mask)
    weights = softmax(scores)
    return torch.matmul(weights, v), weights

# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = masked_scores(scores, mask)
    weights = softmax(scores)
    if v.size(-1) == v.size(-2):  # "square v must be transposed like k"
        return weights @ v.transpose(-2, -1), weights
    return weights @ v, weights

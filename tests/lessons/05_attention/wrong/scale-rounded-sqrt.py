# grade: scaled_dot_product_attention
import math


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.isqrt(q.shape[-1])  # an integer square root
    if mask is not None:
        scores = masked_scores(scores, mask)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights

# grade: scaled_dot_product_attention
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None and mask.dtype != torch.bool:
        scores = scores + mask.to(scores.dtype)
    weights = softmax(scores, dim=-1)
    if mask is not None and mask.dtype == torch.bool:
        weights = weights * mask  # masked after the softmax, then renormalised
        weights = weights / weights.sum(-1, keepdim=True)
    return weights @ v, weights

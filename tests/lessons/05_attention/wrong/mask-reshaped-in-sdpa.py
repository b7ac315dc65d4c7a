# grade: scaled_dot_product_attention
# A (B, Lq, Lk) mask unsqueezed "to make room for the heads": a (B, 1, Lk) padding mask then
# broadcasts its batch dim over the queries' batch.
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        if mask.dtype == torch.bool:
            scores = masked_scores(scores, mask)
        else:
            scores = scores + mask.to(scores.dtype)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights

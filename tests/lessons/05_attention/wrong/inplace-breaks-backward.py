# grade: scaled_dot_product_attention
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None and mask.dtype == torch.bool:
        scores = masked_scores(scores, mask)
    elif mask is not None:
        scores = scores + mask.to(scores.dtype)
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    weights = torch.exp(scores - m)
    weights /= weights.sum(-1, keepdim=True).clamp_min(1e-30)  # in place: exp's output, saved
    return weights @ v, weights

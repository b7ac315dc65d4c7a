# grade: scaled_dot_product_attention
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        if mask.dtype != torch.float32:  # float16, bfloat16, float64 masks taken as bool
            mask = torch.zeros(mask.shape, dtype=scores.dtype, device=mask.device).masked_fill(~mask, float("-inf"))
        scores = scores + mask.to(scores.dtype)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights

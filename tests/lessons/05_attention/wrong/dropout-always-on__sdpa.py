# grade: scaled_dot_product_attention
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        scores = masked_scores(scores, mask) if mask.dtype == torch.bool else scores + mask
    weights = F.dropout(softmax(scores, dim=-1), 0.1)
    return weights @ v, weights

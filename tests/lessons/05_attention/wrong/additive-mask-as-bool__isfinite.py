# grade: scaled_dot_product_attention
# A float mask turned into a bool one with isfinite(): right for 0/-inf masks, but a finite bias
# (as ALiBi adds) is dropped.
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        if mask.dtype != torch.bool:
            mask = torch.isfinite(mask)
        scores = masked_scores(scores, mask)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights

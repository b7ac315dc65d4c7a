# grade: scaled_dot_product_attention
import torch
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v, mask=None):
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return out, torch.softmax(scores, -1).nan_to_num()

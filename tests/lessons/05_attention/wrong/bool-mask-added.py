# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores + mask.float()  # 1 where allowed, 0 where blocked: blocks nothing
        else:
            scores = scores + mask.to(scores.dtype)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights

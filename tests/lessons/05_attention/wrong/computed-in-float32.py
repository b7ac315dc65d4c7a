# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    dtype = q.dtype
    q, k, v = q.float(), k.float(), v.float()  # "float32 is enough", then back to the input dtype
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask.to(scores.dtype)
    m = scores.amax(-1, keepdim=True)
    e = torch.exp(scores - torch.where(torch.isinf(m), torch.zeros_like(m), m))
    s = e.sum(-1, keepdim=True)
    weights = torch.where(s == 0, torch.zeros_like(e), e / s)
    return (weights @ v).to(dtype), weights.to(dtype)

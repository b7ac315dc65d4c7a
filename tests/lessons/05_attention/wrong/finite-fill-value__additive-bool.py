# grade: scaled_dot_product_attention
# A bool mask made an additive -1e4 bias (BERT's (1.0 - mask) * -10000.0): a query whose keys are
# all blocked gets softmax of its raw scores instead of zeros.
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        if mask.dtype == torch.bool:
            mask = torch.zeros_like(mask, dtype=s.dtype).masked_fill(~mask, -1e4)
        s = s + mask.to(s.dtype)
    w = torch.softmax(s, -1)
    return w @ v, w

# grade: TransformerBlock
# Trial 49: attention that takes only bool masks (~mask raises on the block's float mask) was
# named [mask-polarity-inverted], whose mutant raised the same TypeError.
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    return weights @ v, weights

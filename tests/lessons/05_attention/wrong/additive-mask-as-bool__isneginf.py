# grade: scaled_dot_product_attention
# A float mask made bool by ~isneginf: its finite biases are lost.
import math
import torch


def _scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

def scaled_dot_product_attention(q, k, v, mask=None):
    s = _scores(q, k)
    if mask is not None:
        if mask.dtype != torch.bool:
            mask = ~torch.isneginf(mask)
        s = s.masked_fill(~mask, float('-inf'))
    w = torch.softmax(s, -1).nan_to_num(0.0)
    return w @ v, w

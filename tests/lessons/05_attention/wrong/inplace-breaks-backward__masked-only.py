# grade: scaled_dot_product_attention
# Fully masked rows zeroed in place on the softmax's output, only when a mask is given: backward()
# raises for every masked call (the softmax needs its output).
import math
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is None:
        w = torch.softmax(s, dim=-1)
        return w @ v, w
    if mask.dtype != torch.bool:
        s = s + mask.to(s.dtype)
        allowed = ~torch.isneginf(mask)
    else:
        s = s.masked_fill(~mask, float('-inf'))
        allowed = mask
    w = torch.softmax(s, dim=-1)
    w.masked_fill_(~allowed.any(-1, keepdim=True), 0.0)
    return w @ v, w

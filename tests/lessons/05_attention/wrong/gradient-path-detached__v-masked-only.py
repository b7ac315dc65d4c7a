# grade: scaled_dot_product_attention
# v detached on the masked path only.
import math
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float('-inf')) if mask.dtype == torch.bool else s + mask.to(s.dtype)
        w = torch.softmax(s, dim=-1).nan_to_num(0.0)
        return w @ v.detach(), w
    w = torch.softmax(s, dim=-1)
    return w @ v, w

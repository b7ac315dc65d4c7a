# grade: softmax
# The sum clamped at 1e-30, which is 0 in float16: 0 / 0 for a fully masked row there.
import torch


def softmax(x, dim=-1):
    m = x.amax(dim, keepdim=True)
    m = m.masked_fill(m == float('-inf'), 0)
    e = (x - m).exp()
    return e / e.sum(dim, keepdim=True).clamp_min(1e-30)

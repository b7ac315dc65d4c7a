# grade: softmax
# The max clamped at float32's min, -inf in float16 and bfloat16.
import torch


def softmax(x, dim=-1):
    m = x.amax(dim, keepdim=True).clamp_min(torch.finfo(torch.float32).min)
    e = (x - m).exp()
    s = e.sum(dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)

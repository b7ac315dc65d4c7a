# grade: softmax
import torch


def softmax(x, dim=-1):
    # the max floored "against a row of -inf": rows far below 0 subtract the floor, not their max
    m = x.amax(dim, keepdim=True).clamp(min=-1e4)
    e = torch.exp(x - m)
    s = e.sum(dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)

# grade: softmax
import torch


def softmax(x, dim=-1):
    m = x.max()  # one max is enough to keep exp from overflowing
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)  # fully masked rows give 0

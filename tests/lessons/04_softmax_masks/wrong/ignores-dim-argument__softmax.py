# grade: softmax
import torch


def softmax(x, dim=-1):
    m = x.max(-1, keepdim=True).values
    m = torch.where(m == float("-inf"), torch.zeros_like(m), m)
    e = (x - m).exp()
    total = e.sum(-1, keepdim=True)
    return torch.where(total > 0, e / total, torch.zeros_like(e))

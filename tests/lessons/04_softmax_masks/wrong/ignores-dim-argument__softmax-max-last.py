# grade: softmax
# The sum follows dim, the max does not: each row's max along the last dim is subtracted, a shift
# that varies along dim.
import torch


def softmax(x, dim=-1):
    m = x.max(dim=-1, keepdim=True).values
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    e = torch.exp(x - m)
    s = e.sum(dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)

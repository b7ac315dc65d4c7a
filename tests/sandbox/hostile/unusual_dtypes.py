"""Red team round 17: reply tensors of dtypes no exercise returns (a quantized softmax, a float8
or bits8 mask) passed the reply's checks and then raised in the judge's comparisons, where the
exercise failed as "the grader failed". They are the learner's doing, and say so."""

import torch


def softmax(x, dim=-1):
    e = (x - x.amax(dim, keepdim=True)).exp()
    p = e / e.sum(dim, keepdim=True)
    return torch.quantize_per_tensor(p, 0.01, 0, torch.quint8)


def causal_mask(n, device=None):
    mask = torch.ones(n, n, dtype=torch.bool, device=device).tril()
    return mask.to(torch.uint8).view(getattr(torch, "__DTYPE__"))

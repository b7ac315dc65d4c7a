# Source: triton-lang/triton, python/tutorials/02-fused-softmax.py (Triton 3.0), naive_softmax:
# "We subtract the maximum element in order to avoid overflows. Softmax is invariant to this
# shift." -- `x_max = x.max(dim=1)[0]`, `z = x - x_max[:, None]`, `numerator = torch.exp(z)`,
# `denominator = numerator.sum(dim=1)`, `ret = numerator / denominator[:, None]`.
# Adapted to the contract: the tutorial's rows are dim=1 of a 2-D tensor; here dim is the
# argument, so `[:, None]` becomes keepdim=True; a row of all -inf (a fully masked row) has max
# -inf and would give NaN, so its max is taken as 0 and its zero denominator as 1, giving zeros
# as COURSE_SPEC asks (the tutorial's inputs are never all -inf).
# Kept: max(dim)[0], exp of the shifted input, sum, divide.
# grade: softmax
import torch


def softmax(x, dim=-1):
    x_max = x.max(dim=dim, keepdim=True)[0]
    x_max = torch.where(torch.isneginf(x_max), torch.zeros_like(x_max), x_max)
    z = x - x_max
    numerator = torch.exp(z)
    denominator = numerator.sum(dim=dim, keepdim=True)
    denominator = torch.where(denominator == 0, torch.ones_like(denominator), denominator)
    ret = numerator / denominator
    return ret

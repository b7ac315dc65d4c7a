# Source: pytorch/pytorch, aten/src/ATen/native/transformers/attention.cpp, _safe_softmax
# (added in pytorch/pytorch PR #131060: softmax, then rows whose inputs are all -inf set to 0)
# and the max-subtraction of aten's softmax kernels (aten/src/ATen/native/cpu/SoftMaxKernel.cpp:
# max, exp(x - max), sum, divide).
# Adapted to the contract: written in Python with tensor ops as the exercise's softmax(x, dim)
# (torch.softmax is forbidden here), the max of an all -inf row replaced by 0 before subtracting.
# grade: softmax
import torch


def softmax(x, dim=-1):
    masked = torch.isneginf(x)
    masked_rows = masked.all(dim=dim, keepdim=True)
    max_input = x.amax(dim=dim, keepdim=True)
    max_input = torch.where(masked_rows, torch.zeros_like(max_input), max_input)
    tmp = torch.exp(x - max_input)
    tmp_sum = tmp.sum(dim=dim, keepdim=True)
    out = tmp / tmp_sum
    zero = torch.zeros((), dtype=out.dtype, device=out.device)
    return torch.where(masked_rows, zero, out)

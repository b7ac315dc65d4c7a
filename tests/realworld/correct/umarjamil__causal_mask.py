# Source: hkproj/pytorch-transformer (Umar Jamil, "Coding a Transformer from scratch"),
# dataset.py, causal_mask(size):
#   mask = torch.triu(torch.ones((1, size, size)), diagonal=1).type(torch.int)
#   return mask == 0
# (ones strictly above the diagonal are the future; `== 0` turns them into False = blocked).
# Adapted to the contract: the leading (1, ...) batch dim is dropped (COURSE_SPEC's mask is
# (L, L)), and the ones are made on the requested device.
# Kept: triu(diagonal=1) of the future, then `== 0` for "may attend".
# grade: causal_mask
import torch


def causal_mask(size, device=None):
    mask = torch.triu(torch.ones((size, size), device=device), diagonal=1).type(torch.int)
    return mask == 0

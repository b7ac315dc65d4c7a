# grade: causal_mask
# A uint8 mask of 0 and 1, not bool.
import torch


def causal_mask(seq_len, device=None):
    return torch.tril(torch.ones(seq_len, seq_len, dtype=torch.uint8, device=device))

# grade: causal_mask
import torch


def causal_mask(seq_len, device=None):
    return torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device), diagonal=1)

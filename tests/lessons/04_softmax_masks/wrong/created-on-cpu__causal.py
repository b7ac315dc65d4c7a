# grade: causal_mask
import torch


def causal_mask(seq_len, device=None):
    return torch.tril(torch.ones(seq_len, seq_len)).bool()

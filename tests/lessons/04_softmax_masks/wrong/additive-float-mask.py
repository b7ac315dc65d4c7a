# grade: causal_mask
import torch


def causal_mask(seq_len, device=None):
    mask = torch.full((seq_len, seq_len), float("-inf"), device=device)
    return torch.triu(mask, diagonal=1)

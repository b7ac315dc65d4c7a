# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    i = torch.arange(seq_len).unsqueeze(1)
    j = torch.arange(seq_len).unsqueeze(0)
    return (j > i) | (i - j >= window)

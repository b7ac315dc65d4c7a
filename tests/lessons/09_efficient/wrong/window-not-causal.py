# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    idx = torch.arange(seq_len)
    return (idx[:, None] - idx[None, :]).abs() < window

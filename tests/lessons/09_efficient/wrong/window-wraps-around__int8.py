# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    i = torch.arange(seq_len).to(torch.int8)[:, None]  # int8 "to save memory": wraps past 127
    j = torch.arange(seq_len).to(torch.int8)[None, :]
    d = i - j
    return (d >= 0) & (d < window)

# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    window = min(window, seq_len - 1)  # a window of seq_len or more loses key 0 of the last query
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    return (i - j >= 0) & (i - j < window)

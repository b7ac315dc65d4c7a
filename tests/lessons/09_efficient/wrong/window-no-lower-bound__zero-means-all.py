# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    if window <= 0:  # read as "no limit": the contract's 0 <= i - j < 0 allows no key at all
        return j <= i
    return (i - j >= 0) & (i - j < window)

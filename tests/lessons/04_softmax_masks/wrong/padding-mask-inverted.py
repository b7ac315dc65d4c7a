# grade: padding_mask
import torch


def padding_mask(lengths, max_len):
    idx = torch.arange(max_len, device=lengths.device).expand(len(lengths), max_len)
    return idx >= lengths.unsqueeze(-1)

# grade: padding_mask
import torch


def padding_mask(lengths, max_len):
    positions = torch.arange(max_len, device=lengths.device)
    return (positions.unsqueeze(0) < lengths.unsqueeze(1)).long()

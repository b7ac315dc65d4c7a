# grade: padding_mask
import torch


def padding_mask(lengths, max_len):
    return torch.tensor([[i < n for i in range(max_len)] for n in lengths.tolist()])

# grade: padding_mask
import torch


def padding_mask(lengths, max_len):
    return torch.arange(max_len)[None, :] < lengths[:, None]

# grade: padding_mask
import torch


def padding_mask(lengths, max_len):
    idx = torch.arange(max_len, device=lengths.device)
    return idx[None, :] <= lengths[:, None]

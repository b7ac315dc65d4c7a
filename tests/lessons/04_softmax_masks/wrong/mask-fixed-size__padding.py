# grade: padding_mask
# Positions made once at import for the longest sequence the author expected (trial 47).
import torch

POSITIONS = torch.arange(512)


def padding_mask(lengths, max_len):
    positions = POSITIONS[:max_len].to(lengths.device)
    return positions[None, :] < lengths[:, None]

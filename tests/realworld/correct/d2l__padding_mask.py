# Source: d2l-ai/d2l-en, d2l/torch.py, def sequence_mask (used by masked_softmax):
# mask = torch.arange(maxlen, dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None].
# Adapted to the contract: named padding_mask(lengths, max_len), returns the mask itself
# (True at real positions) instead of filling X with it.
# grade: padding_mask
import torch


def padding_mask(lengths, max_len):
    """Mask irrelevant entries in sequences."""
    mask = torch.arange((max_len), dtype=torch.float32, device=lengths.device)[None, :] < lengths[:, None]
    return mask

# Source: harvardnlp/annotated-transformer, the_annotated_transformer.py, def subsequent_mask
# (torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8) == 0).
# Adapted to the contract: named causal_mask, shape (L, L) instead of (1, L, L), the device
# argument. The mask is already True = may attend.
# grade: causal_mask
import torch


def causal_mask(seq_len, device=None):
    "Mask out subsequent positions."
    attn_shape = (seq_len, seq_len)
    subsequent_mask = torch.triu(torch.ones(attn_shape, device=device), diagonal=1).type(torch.uint8)
    return subsequent_mask == 0

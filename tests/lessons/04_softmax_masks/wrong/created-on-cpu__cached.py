# grade: causal_mask
# A mask cached by seq_len alone: the first call's device is returned for every later device.
import torch

_CACHE = {}


def causal_mask(seq_len, device=None):
    if seq_len not in _CACHE:
        _CACHE[seq_len] = torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
    return _CACHE[seq_len]

# Source: maxjcohen/transformer, tst/utils.py, generate_original_PE; bug report
# https://github.com/maxjcohen/transformer/issues/62: the base is 1000 instead of 10000 and the
# cos columns take their exponent from arange(1, d_model, 2) instead of the pair's even index.
# Reproduced in the contract's terms (the function already has the contract's shape).
# expect: pe-wrong-frequencies
# grade: sinusoidal_positional_encoding
import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    PE = torch.zeros((max_len, d_model))
    pos = torch.arange(max_len).unsqueeze(1)
    PE[:, 0::2] = torch.sin(pos / torch.pow(1000, torch.arange(0, d_model, 2, dtype=torch.float32) / d_model))
    PE[:, 1::2] = torch.cos(pos / torch.pow(1000, torch.arange(1, d_model, 2, dtype=torch.float32) / d_model))
    return PE

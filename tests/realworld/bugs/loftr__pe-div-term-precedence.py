# Source: zju3dv/LoFTR, src/loftr/utils/position_encoding.py, PositionEncodingSine; bug report
# https://github.com/zju3dv/LoFTR/issues/41: `(-math.log(10000.0) / d_model // 2)` parses as
# ((-log(10000) / d_model) // 2) = -1.0, so every frequency is e^(-2i) instead of 10000^(-2i/d).
# Reproduced in the contract's terms: the 1-D table with the same div_term expression (the
# arange over all pairs, as in the 1-D encoding).
# expect: pe-wrong-frequencies
# grade: sinusoidal_positional_encoding
import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pe = torch.zeros(max_len, d_model)
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model // 2))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe

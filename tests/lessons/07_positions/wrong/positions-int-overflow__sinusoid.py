# grade: sinusoidal_positional_encoding
import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even, got {d_model}")
    position = torch.arange(max_len, dtype=torch.int16)[:, None]  # a small table: int16 is enough
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(position * div)
    pe[:, 1::2] = torch.cos(position * div)
    return pe

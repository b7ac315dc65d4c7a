# grade: sinusoidal_positional_encoding
import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2).float() / d_model)
    return torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], dim=-1)

# grade: sinusoidal_positional_encoding
import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    positions = torch.linspace(0, 1, max_len)[:, None]  # scaled into [0, 1]
    freqs = 10000.0 ** (-torch.arange(0, d_model, 2) / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(positions * freqs)
    pe[:, 1::2] = torch.cos(positions * freqs)
    return pe

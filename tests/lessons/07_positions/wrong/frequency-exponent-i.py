# grade: sinusoidal_positional_encoding
import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError("odd d_model")
    pe = torch.zeros(max_len, d_model)
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angle = position / 10000 ** (2 * two_i / d_model)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe

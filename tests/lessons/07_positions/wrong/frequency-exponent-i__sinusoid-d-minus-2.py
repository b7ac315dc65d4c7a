# grade: sinusoidal_positional_encoding
import torch

def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    omega = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float32) / (d_model - 2))
    return torch.stack([torch.sin(pos * omega), torch.cos(pos * omega)], -1).flatten(-2)

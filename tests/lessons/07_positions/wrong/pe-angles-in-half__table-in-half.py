# grade: sinusoidal_positional_encoding
import torch

def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pos = torch.arange(max_len, dtype=torch.float16)[:, None]
    omega = (10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)).half()
    ang = pos * omega
    return torch.stack([ang.sin(), ang.cos()], -1).flatten(-2).float()

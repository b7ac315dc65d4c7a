# Source: d2l-ai/d2l-en, d2l/torch.py, class PositionalEncoding.__init__
# (X = arange(max_len).reshape(-1, 1) / torch.pow(10000, arange(0, num_hiddens, 2) / num_hiddens);
# P[:, :, 0::2] = sin(X); P[:, :, 1::2] = cos(X)).
# Adapted to the contract: returns the (max_len, d_model) table instead of a (1, max_len,
# num_hiddens) attribute; odd d_model raises ValueError.
# grade: sinusoidal_positional_encoding
import torch


def sinusoidal_positional_encoding(max_len, num_hiddens):
    if num_hiddens % 2 != 0:
        raise ValueError("num_hiddens must be even")
    # Create a long enough P
    P = torch.zeros((max_len, num_hiddens))
    X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
        10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens
    )
    P[:, 0::2] = torch.sin(X)
    P[:, 1::2] = torch.cos(X)
    return P

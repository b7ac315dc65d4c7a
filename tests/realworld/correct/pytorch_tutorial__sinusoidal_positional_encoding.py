# Source: pytorch/tutorials, beginner_source/transformer_tutorial.py, class PositionalEncoding
# (position = torch.arange(max_len).unsqueeze(1); div_term = torch.exp(torch.arange(0, d_model, 2)
# * (-math.log(10000.0) / d_model)); pe = torch.zeros(max_len, 1, d_model);
# pe[:, 0, 0::2] = torch.sin(position * div_term); pe[:, 0, 1::2] = torch.cos(position * div_term)).
# Adapted to the contract: returns the table as (max_len, d_model) (the tutorial's is
# (max_len, 1, d_model), sequence-first); odd d_model raises ValueError.
# grade: sinusoidal_positional_encoding
import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError(f"d_model={d_model}: sin and cos need an even number of features")
    position = torch.arange(max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, 1, d_model)
    pe[:, 0, 0::2] = torch.sin(position * div_term)
    pe[:, 0, 1::2] = torch.cos(position * div_term)
    return pe[:, 0, :]

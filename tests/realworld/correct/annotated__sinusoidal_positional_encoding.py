# Source: harvardnlp/annotated-transformer, the_annotated_transformer.py, class
# PositionalEncoding.__init__ (div_term = exp(arange(0, d_model, 2) * -(log(10000.0) / d_model))).
# Adapted to the contract: returns the (max_len, d_model) table instead of registering a
# (1, max_len, d_model) buffer; odd d_model raises ValueError (the Annotated Transformer's code
# fails on it with a shape error).
# grade: sinusoidal_positional_encoding
import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    # Compute the positional encodings once in log space.
    pe = torch.zeros(max_len, d_model)
    position = torch.arange(0, max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe

# Source: SamLynnEvans/Transformer, Embed.py, class PositionalEncoder; bug report
# https://github.com/SamLynnEvans/Transformer/issues/25 (same code in intro-llm issue #34):
# `for i in range(0, d_model, 2)` already steps over even columns, yet the exponents are
# (2 * i) / d_model for sin and (2 * (i + 1)) / d_model for cos, so the frequencies are squared
# and sin/cos of a pair use different frequencies.
# Reproduced in the contract's terms: the table as sinusoidal_positional_encoding.
# expect: pe-wrong-frequencies
# grade: sinusoidal_positional_encoding
import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / (10000 ** ((2 * i) / d_model)))
            pe[pos, i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1)) / d_model)))
    return pe

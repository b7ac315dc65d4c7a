# Source: jadore801120/attention-is-all-you-need-pytorch, transformer/Models.py,
# PositionalEncoding._get_sinusoid_encoding_table after the fix of issue #32
# (position / np.power(10000, 2 * (hid_j // 2) / d_hid) for hid_j in range(d_hid); np.sin on the
# even columns, np.cos on the odd ones; torch.FloatTensor(sinusoid_table)).
# Adapted to the contract: a function returning the (max_len, d_model) table (no unsqueeze(0),
# no buffer); odd d_model raises ValueError.
# grade: sinusoidal_positional_encoding
import numpy as np
import torch


def sinusoidal_positional_encoding(n_position, d_hid):
    """Sinusoid position encoding table"""
    if d_hid % 2:
        raise ValueError("d_hid must be even: sin and cos fill the columns in pairs")

    def get_position_angle_vec(position):
        return [position / np.power(10000, 2 * (hid_j // 2) / d_hid) for hid_j in range(d_hid)]

    sinusoid_table = np.array([get_position_angle_vec(pos_i) for pos_i in range(n_position)])
    sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])  # dim 2i
    sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])  # dim 2i+1

    return torch.FloatTensor(sinusoid_table)

# Source: jadore801120/attention-is-all-you-need-pytorch, transformer/Models.py,
# position_encoding_init before commit 7fa8c63; bug report
# https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/32:
# `pos / np.power(10000, 2 * i / d_pos_vec) for i in range(d_pos_vec)` uses 2i for every column i,
# where columns 2i and 2i+1 must share the exponent 2i / d_model.
# Reproduced in the contract's terms: the same table (numpy, then torch), sin on even columns,
# cos on odd ones.
# expect: pe-wrong-frequencies
# grade: sinusoidal_positional_encoding
import numpy as np
import torch


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    position_enc = np.array(
        [[pos / np.power(10000, 2 * i / d_model) for i in range(d_model)] for pos in range(max_len)]
    )
    position_enc[:, 0::2] = np.sin(position_enc[:, 0::2])  # dim 2i
    position_enc[:, 1::2] = np.cos(position_enc[:, 1::2])  # dim 2i+1
    return torch.from_numpy(position_enc).type(torch.FloatTensor)

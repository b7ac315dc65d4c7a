# grade: mha_num_parameters
import torch.nn as nn


def mha_num_parameters(d_model, num_heads, bias=False):
    mha = nn.MultiheadAttention(d_model, num_heads, bias=bias)
    return sum(p.numel() for p in mha.parameters())

# grade: mha_num_parameters
# torch's own multi-head attention has the same count (in_proj: 3 d_model x d_model, out_proj).
import torch.nn as nn


def mha_num_parameters(d_model, num_heads, bias=False):
    module = nn.MultiheadAttention(d_model, num_heads, bias=bias)
    return sum(p.numel() for p in module.parameters())

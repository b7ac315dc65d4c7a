# Source: pytorch/pytorch, torch/nn/functional.py, the docstring of scaled_dot_product_attention
# ("Efficient implementation equivalent to the following": attn_bias = torch.zeros(L, S);
# attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf")) for a bool mask, else
# attn_bias = attn_mask + attn_bias; attn_weight = query @ key.transpose(-2, -1) * scale_factor;
# attn_weight += attn_bias; torch.softmax(attn_weight, dim=-1)).
# Adapted to the contract: named and shaped as the exercise (returns (output, weights)); the
# bias created with the query's dtype and device and the mask's shape; no is_causal/dropout/GQA;
# fully masked rows set to zero as torch's _safe_softmax does (the docstring's sketch gives NaN).
# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(query, key, value, mask=None):
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1))
    attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)
    if mask is not None:
        if mask.dtype == torch.bool:
            attn_bias = attn_bias.masked_fill(mask.logical_not(), float("-inf"))
        else:
            attn_bias = mask + attn_bias
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight += attn_bias
    fully_masked = torch.isneginf(attn_weight).all(dim=-1, keepdim=True)
    attn_weight = torch.softmax(attn_weight, dim=-1)
    attn_weight = torch.where(fully_masked, torch.zeros_like(attn_weight), attn_weight)
    return attn_weight @ value, attn_weight

# Source: pytorch/pytorch, the math path of scaled_dot_product_attention before
# https://github.com/pytorch/pytorch/pull/131060 (issues #41508, #103749): a query row whose keys
# are all masked is all -inf and torch.softmax returns NaN for it.
# Reproduced in the contract's terms: SDPA with masked_fill(-inf) and softmax, no guard.
# expect: fully-masked-nan
# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(query, key, value, mask=None):
    attn_weight = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        attn_weight = attn_weight.masked_fill(mask.logical_not(), float("-inf"))
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ value, attn_weight

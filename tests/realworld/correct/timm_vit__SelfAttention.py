# Source: huggingface/pytorch-image-models, timm/layers/attention.py
# (commit 02bb6b3e3e423554c211eaa0c6b419461336f94e), class Attention (the non-fused path) with
# resolve_self_attn_mask and maybe_add_mask: a bool mask becomes an additive bias,
# `attn_bias.masked_fill_(~attn_mask, float('-inf'))`, a float mask is added as it is.
# Adapted to the contract: one head (num_heads=1) with d_k/d_v widths, so the fused `qkv` Linear
# is split into w_q, w_k, w_v (bias=False, as timm's qkv_bias default) and there is no `proj`;
# forward(x, mask) returns (output, weights); rows with every key masked give zeros (timm's
# manual path would give NaN there: COURSE_SPEC asks for zeros, as SDPA gives).
# Kept: q scaled before the product, the bool mask made an additive -inf bias, Tensor.softmax.
# grade: SelfAttention
import torch
from torch import nn as nn


def resolve_self_attn_mask(attn, attn_mask=None):
    # Build additive bias matching SDPA semantics for self-attention
    if attn_mask is None:
        attn_bias = None
    elif attn_mask.dtype == torch.bool:
        attn_bias = torch.zeros_like(attn_mask, dtype=attn.dtype)
        attn_bias.masked_fill_(~attn_mask, float("-inf"))
    else:
        attn_bias = attn_mask
    return attn_bias


def maybe_add_mask(scores, attn_mask=None):
    return scores if attn_mask is None else scores + attn_mask


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.head_dim = d_k
        self.scale = self.head_dim**-0.5
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        attn_bias = resolve_self_attn_mask(attn, mask)
        attn = maybe_add_mask(attn, attn_bias)
        attn = attn.softmax(dim=-1)
        attn = attn.nan_to_num(0.0)  # a row with no key to attend to
        x = attn @ v
        return x, attn

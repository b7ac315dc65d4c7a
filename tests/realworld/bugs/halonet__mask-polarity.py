# Source: lucidrains/halonet-pytorch, halonet_pytorch/halonet_pytorch.py, HaloAttention.forward;
# bug report https://github.com/lucidrains/halonet-pytorch/issues/4 (fixed by PR #6): the mask is
# True at valid positions, yet `sim.masked_fill_(mask, max_neg_value)` fills exactly those.
# Reproduced in the contract's terms: SDPA given the contract's mask (True = attend) fills where
# the mask is True, with lucidrains' einsum and -finfo.max fill.
# expect: mask-polarity-inverted
# grade: scaled_dot_product_attention
import torch
from torch import einsum


def scaled_dot_product_attention(q, k, v, mask=None):
    scale = q.shape[-1] ** -0.5
    sim = einsum("... i d, ... j d -> ... i j", q, k) * scale
    if mask is not None:
        max_neg_value = -torch.finfo(sim.dtype).max
        sim = sim.masked_fill(mask, max_neg_value)
    attn = sim.softmax(dim=-1)
    out = einsum("... i j, ... j d -> ... i d", attn, v)
    return out, attn

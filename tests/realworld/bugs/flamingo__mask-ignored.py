# Source: lucidrains/flamingo-pytorch, flamingo_pytorch/flamingo_pytorch.py,
# MaskedCrossAttention.forward; bug report
# https://github.com/lucidrains/flamingo-pytorch/issues/10: `sim.masked_fill(...)` (not the
# in-place masked_fill_) was called without using its result, so the mask had no effect.
# Reproduced in the contract's terms: SDPA whose masked_fill result is discarded.
# expect: mask-ignored
# grade: scaled_dot_product_attention
import torch
from torch import einsum


def scaled_dot_product_attention(q, k, v, mask=None):
    q = q * q.shape[-1] ** -0.5
    sim = einsum("... i d, ... j d -> ... i j", q, k)
    if mask is not None:
        sim.masked_fill(~mask, -torch.finfo(sim.dtype).max)
    sim = sim - sim.amax(dim=-1, keepdim=True).detach()
    attn = sim.softmax(dim=-1)
    out = einsum("... i j, ... j d -> ... i d", attn, v)
    return out, attn

# Source: lucidrains/memory-compressed-attention,
# memory_compressed_attention/memory_compressed_attention.py, MemoryCompressedAttention.forward;
# bug report https://github.com/lucidrains/memory-compressed-attention/issues/2: the causal mask
# was applied after dots.softmax(dim=-1), so masked keys had already taken their share.
# Reproduced in the contract's terms: SDPA that softmaxes, then masks the weights.
# expect: mask-after-softmax
# grade: scaled_dot_product_attention
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    dots = torch.einsum("...id,...jd->...ij", q, k) * q.shape[-1] ** -0.5
    attn = dots.softmax(dim=-1)
    if mask is not None:
        attn = attn.masked_fill(~mask, 0.0)
    out = torch.einsum("...ij,...jd->...id", attn, v)
    return out, attn

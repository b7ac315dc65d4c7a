# Source: Dao-AILab/flash-attention, tests/test_flash_attn.py (v2.6.3), attention_ref, the
# reference the kernels are tested against: `dtype_og = q.dtype`, `if upcast: q, k, v =
# q.float(), k.float(), v.float()`, `scores = torch.einsum("bthd,bshd->bhts", q / math.sqrt(d),
# k)`, `scores.masked_fill_(local_mask, float("-inf"))` (local_mask True = masked), `if attn_bias
# is not None: scores = scores + attn_bias`, `attention = torch.softmax(scores,
# dim=-1).to(v.dtype)`, "Some rows might be completely masked out so we fill them with zero
# instead of NaN": `attention.masked_fill(torch.all(local_mask, dim=-1, keepdim=True), 0.0)`,
# `output = torch.einsum("bhts,bshd->bthd", attention, v)`, `return output.to(dtype=dtype_og),
# attention.to(dtype=dtype_og)`.
# Adapted to the contract: tensors are (..., L, d), not (b, s, h, d), so the einsums read
# "...td,...sd->...ts" and "...ts,...sd->...td"; the bool mask (True = may attend) is the
# contract's, so local_mask = ~mask; a float mask is attn_bias, and a row whose bias is all -inf
# is zeroed like a fully masked one; upcast is promote_types(dtype, float32) (q.float() would
# compute float64 inputs in float32); no dropout, softcap, window or padding-mask arguments.
# Kept: the scale on q before the einsum, masked_fill_ in place, softmax then .to(v.dtype), the
# zeroing of fully masked rows, both results cast back to the input dtype.
# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, upcast=True):
    dtype_og = q.dtype
    if upcast:
        acc = torch.promote_types(dtype_og, torch.float32)
        q, k, v = q.to(acc), k.to(acc), v.to(acc)
    d = q.shape[-1]
    scores = torch.einsum("...td,...sd->...ts", q / math.sqrt(d), k)
    local_mask = attn_bias = None
    if mask is not None and mask.dtype == torch.bool:
        local_mask = ~mask
        scores.masked_fill_(local_mask, float("-inf"))
    elif mask is not None:
        attn_bias = mask.to(scores.dtype)
        local_mask = torch.isneginf(attn_bias)
        scores = scores + attn_bias
    attention = torch.softmax(scores, dim=-1).to(v.dtype)
    # Some rows might be completely masked out so we fill them with zero instead of NaN
    if local_mask is not None:
        attention = attention.masked_fill(torch.all(local_mask, dim=-1, keepdim=True), 0.0)
    output = torch.einsum("...ts,...sd->...td", attention, v)
    return output.to(dtype=dtype_og), attention.to(dtype=dtype_og)

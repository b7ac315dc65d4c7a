# Source: facebookresearch/xformers, tests/test_mem_eff_attention.py, ref_attention (the
# reference the kernels are tested against): `q = q * (1 / q.shape[-1] ** 0.5)`, `attn = q @
# k.transpose(-2, -1)`, `if attn_bias is not None: attn = attn + attn_bias` (an AttentionBias
# is first materialized; xformers/ops/fmha/attn_bias.py builds its additive masks as
# `torch.log(mask)` of a 0/1 tensor: log 1 = 0, log 0 = -inf), `attn = attn.softmax(-1)`,
# `return attn @ v`.
# Adapted to the contract: a bool mask (True = may attend) is materialized as xformers does,
# `torch.log` of it as 0/1 in the scores' dtype; a float mask is the bias, cast to the scores'
# dtype (AttentionBias.materialize takes the dtype to build it in; a float32 mask added to float16
# scores as it is would promote them and the `@ v` would raise: the grader names that
# [dtype-promoted], and F.scaled_dot_product_attention takes such a mask and stays float16);
# rows whose keys are all masked give zeros (COURSE_SPEC; the reference would give NaN); returns
# (output, attn).
# Kept: q scaled before the product, the bias added, Tensor.softmax(-1).
# grade: scaled_dot_product_attention
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    q = q * (1 / q.shape[-1] ** 0.5)
    attn = q @ k.transpose(-2, -1)
    if mask is not None:
        attn_bias = torch.log(mask.to(attn.dtype)) if mask.dtype == torch.bool else mask.to(attn.dtype)
        attn = attn + attn_bias
    attn = attn.softmax(-1)
    attn = torch.where(attn.isnan(), torch.zeros_like(attn), attn)
    return attn @ v, attn

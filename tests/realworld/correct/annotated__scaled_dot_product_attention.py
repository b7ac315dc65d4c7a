# Source: harvardnlp/annotated-transformer, the_annotated_transformer.py, def attention().
# Adapted to the contract: renamed; `mask == 0` becomes `~mask` on the contract's bool mask
# (True = attend) plus the float-mask branch (cast to the scores' dtype); the -1e9 fill becomes -inf (COURSE_SPEC: no fill
# that overflows float16) with the fully-masked rows set to zero; the dropout argument dropped.
# Kept: d_k = query.size(-1), matmul/transpose(-2, -1), scores.softmax(dim=-1).
# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(query, key, value, mask=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None and mask.dtype == torch.bool:
        scores = scores.masked_fill(~mask, float("-inf"))
    elif mask is not None:
        scores = scores + mask.to(scores.dtype)
    p_attn = scores.softmax(dim=-1)
    p_attn = torch.where(torch.isneginf(scores).all(-1, keepdim=True), 0.0, p_attn)
    return torch.matmul(p_attn, value), p_attn

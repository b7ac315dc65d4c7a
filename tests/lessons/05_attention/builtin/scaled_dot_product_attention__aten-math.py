# grade: scaled_dot_product_attention
# SDPA's math kernel, looked up by a name built at run time: it is an ATen op whose name contains
# "attention", refused however it is reached.
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    op = getattr(torch.ops.aten, "_scaled_dot_product_" + "attention_math")
    if mask is not None and mask.dtype == torch.bool:
        mask = torch.zeros(mask.shape, dtype=q.dtype, device=q.device).masked_fill(
            ~mask, float("-inf")
        )
    elif mask is not None:
        mask = mask.to(q.dtype)
    out, weights = op.default(q, k, v, attn_mask=mask)
    return out.nan_to_num(0.0), weights.nan_to_num(0.0)

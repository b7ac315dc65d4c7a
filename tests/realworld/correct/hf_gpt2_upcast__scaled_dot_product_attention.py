# Source: huggingface/transformers, src/transformers/models/gpt2/modeling_gpt2.py (v4.40),
# GPT2Attention._upcast_and_reordered_attn (reorder_and_upcast_attn=True): `attn_weights =
# torch.empty(bsz * num_heads, q_seq_len, k_seq_len, dtype=torch.float32, device=query.device)`,
# `q, k = query.reshape(-1, q_seq_len, dk), key.transpose(-1, -2).reshape(-1, dk, k_seq_len)`,
# `attn_weights = torch.baddbmm(attn_weights, q.float(), k.float(), beta=0, alpha=scale_factor)`,
# `attn_weights = attn_weights.reshape(bsz, num_heads, q_seq_len, k_seq_len)`, the mask,
# `nn.functional.softmax(attn_weights, dim=-1)`, `attn_weights = attn_weights.type(value.dtype)`,
# `attn_output = torch.matmul(attn_weights, value)`.
# Adapted to the contract: scale_factor is 1 / sqrt(d_k) (GPT-2 divides by sqrt of the value width,
# see the bug file gpt2__scale-by-value-dim); the leading dims are any number, flattened and
# restored; q.float() is promote_types(q.dtype, float32), so float64 stays float64; GPT-2's causal
# torch.where(finfo.min) is the contract's mask (bool: -inf where False; float: added) and a row
# with every key masked gives zeros; returns (output, weights).
# Kept: float32 scores from baddbmm onto torch.empty with beta=0, softmax in float32, the weights
# cast to value's dtype before the matmul.
# grade: scaled_dot_product_attention
import torch
from torch import nn


def scaled_dot_product_attention(query, key, value, mask=None):
    *batch, q_seq_len, dk = query.size()
    k_seq_len = key.size(-2)
    acc = torch.promote_types(query.dtype, torch.float32)
    scale_factor = 1.0 / float(dk) ** 0.5
    attn_weights = torch.empty(
        max(query[..., 0, 0].numel(), 1), q_seq_len, k_seq_len, dtype=acc, device=query.device
    )
    q = query.reshape(-1, q_seq_len, dk)
    k = key.transpose(-1, -2).reshape(-1, dk, k_seq_len)
    attn_weights = torch.baddbmm(attn_weights, q.to(acc), k.to(acc), beta=0, alpha=scale_factor)
    attn_weights = attn_weights.reshape(*batch, q_seq_len, k_seq_len)
    if mask is not None and mask.dtype == torch.bool:
        attn_weights = attn_weights.masked_fill(~mask, float("-inf"))
    elif mask is not None:
        attn_weights = attn_weights + mask.to(acc)
    attn_weights = nn.functional.softmax(attn_weights, dim=-1)
    attn_weights = attn_weights.nan_to_num(0.0)  # rows with no key to attend to
    attn_weights = attn_weights.type(value.dtype)
    attn_output = torch.matmul(attn_weights, value)
    return attn_output, attn_weights

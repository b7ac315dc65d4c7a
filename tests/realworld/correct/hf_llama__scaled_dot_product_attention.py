# Source: huggingface/transformers, src/transformers/models/llama/modeling_llama.py,
# def eager_attention_forward (attn_weights = torch.matmul(query, key_states.transpose(2, 3)) *
# scaling; attn_weights = attn_weights + causal_mask; nn.functional.softmax(attn_weights, dim=-1,
# dtype=torch.float32).to(query.dtype)), the softmax in float32 for half inputs.
# Adapted to the contract: the function's name and (q, k, v, mask) signature, scaling =
# d_k ** -0.5, transpose(-2, -1) for any leading dims, no repeat_kv (no GQA); the bool mask turned
# into an additive one (HF's masks are additive) with torch.finfo(dtype).min, as HF's
# _prepare_4d_causal_attention_mask does, and rows with no key allowed set to zero.
# grade: scaled_dot_product_attention
import torch
from torch import nn


def scaled_dot_product_attention(query, key, value, mask=None):
    scaling = query.shape[-1] ** -0.5
    attn_weights = torch.matmul(query, key.transpose(-2, -1)) * scaling
    if mask is not None:
        if mask.dtype == torch.bool:
            min_dtype = torch.finfo(attn_weights.dtype).min
            causal_mask = torch.zeros_like(mask, dtype=attn_weights.dtype).masked_fill(~mask, min_dtype)
            allowed = mask
        else:
            causal_mask = mask
            allowed = ~torch.isneginf(mask)
        attn_weights = attn_weights + causal_mask
        no_key = ~allowed.any(-1, keepdim=True)
    # upcast attention to fp32
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    if mask is not None:
        attn_weights = attn_weights.masked_fill(no_key, 0.0)
    attn_output = torch.matmul(attn_weights, value)
    return attn_output, attn_weights

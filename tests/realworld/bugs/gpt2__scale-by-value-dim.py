# Source: openai/gpt-2, src/model.py, attn/multihead_attn (`w = w * tf.rsqrt(tf.cast(v.shape[-1].value,
# w.dtype))`), carried into huggingface/transformers' GPT2Attention._attn (`attn_weights =
# attn_weights / torch.full([], value.size(-1) ** 0.5, ...)`); bug report
# https://github.com/openai/gpt-2/issues/49 ("You are scaling by rsqrt(dim value) where as it is
# usual to scale by rsqrt(dim key)"; the answer: "in this case they are the same"), again in
# https://github.com/huggingface/transformers/issues/14290.
# Reproduced in the contract's terms, where d_k and d_v may differ: scaled_dot_product_attention
# scales the scores by sqrt(v.size(-1)).
# expect: scaled-by-d-v
# grade: scaled_dot_product_attention
import torch


def scaled_dot_product_attention(query, key, value, mask=None):
    attn_weights = torch.matmul(query, key.transpose(-1, -2))
    attn_weights = attn_weights / torch.full(
        [], value.size(-1) ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device
    )
    if mask is not None and mask.dtype == torch.bool:
        mask_value = torch.tensor(float("-inf"), dtype=attn_weights.dtype, device=attn_weights.device)
        attn_weights = torch.where(mask, attn_weights, mask_value)
    elif mask is not None:
        attn_weights = attn_weights + mask
    attn_weights = torch.softmax(attn_weights, dim=-1).nan_to_num(0.0)
    attn_output = torch.matmul(attn_weights, value)
    return attn_output, attn_weights

# Source: lucidrains/memory-efficient-attention-pytorch,
# memory_efficient_attention_pytorch/flash_attention.py, FlashAttentionFunction.forward (per key
# chunk: attn_weights = einsum('... i d, ... j d -> ... i j', qc, kc) * scale; causal masked_fill
# with -max_neg_value; block_row_maxes, new_row_maxes = torch.maximum(block_row_maxes,
# row_maxes); exp_weights; exp_row_max_diff = torch.exp(row_maxes - new_row_maxes);
# new_row_sums = exp_row_max_diff * row_sums + block_row_sums; oc.mul_(exp_row_max_diff)
# .add_(exp_values); then o / row_sums).
# Adapted to the contract: one function with (q, k, v, block_size, causal); query chunking and
# the key padding mask dropped; -inf instead of -finfo.max with a guard for rows that have seen
# no key yet (top-left causal: query i sees keys 0..i); accumulators in float32 for half inputs
# (float64 kept, as the source computes in the inputs' dtype)
# and the output cast back; no in-place updates (autograd instead of a custom backward).
# grade: tiled_attention
import torch
from torch import einsum


def tiled_attention(q, k, v, block_size=64, causal=False):
    scale = q.shape[-1] ** -0.5
    dtype = q.dtype
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    q_len, k_len = q.shape[-2], k.shape[-2]

    o = torch.zeros((*q.shape[:-1], v.shape[-1]), device=q.device)
    row_sums = torch.zeros((*q.shape[:-1], 1), device=q.device)
    row_maxes = torch.full((*q.shape[:-1], 1), float("-inf"), device=q.device)
    q_ind = torch.arange(q_len, device=q.device)

    for k_start in range(0, k_len, block_size):
        kc = k[..., k_start : k_start + block_size, :]
        vc = v[..., k_start : k_start + block_size, :]
        attn_weights = einsum("... i d, ... j d -> ... i j", q, kc) * scale

        if causal:
            k_ind = torch.arange(k_start, k_start + kc.shape[-2], device=q.device)
            causal_mask = q_ind[:, None] < k_ind[None, :]
            attn_weights = attn_weights.masked_fill(causal_mask, float("-inf"))

        block_row_maxes = attn_weights.amax(dim=-1, keepdims=True)
        new_row_maxes = torch.maximum(block_row_maxes, row_maxes)
        safe_maxes = torch.where(torch.isneginf(new_row_maxes), 0.0, new_row_maxes)

        exp_weights = torch.exp(attn_weights - safe_maxes)
        block_row_sums = exp_weights.sum(dim=-1, keepdims=True)
        exp_values = einsum("... i j, ... j d -> ... i d", exp_weights, vc)
        exp_row_max_diff = torch.exp(row_maxes - safe_maxes)

        row_sums = exp_row_max_diff * row_sums + block_row_sums
        o = o * exp_row_max_diff + exp_values
        row_maxes = new_row_maxes

    o = o / row_sums.clamp(min=1e-20)
    return o.to(dtype)

# Source: pytorch/pytorch, the reference implementation in the docstring of
# torch.nn.functional.scaled_dot_product_attention (v2.5): `attn_bias = torch.zeros(L, S,
# dtype=query.dtype, device=query.device)`; `if attn_mask.dtype == torch.bool:
# attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))`; `attn_weight += attn_bias`.
# Adapted to the contract: masked_scores(scores, mask) returns scores + attn_bias; the bias is
# made in the mask's broadcast shape with the scores (the docstring's (L, S) bias cannot take a
# mask with batch dims in an in-place masked_fill_) and the scores' dtype and device.
# Kept: a zeros bias, masked_fill_ of logical_not() with -inf, the bias added to the scores.
# grade: masked_scores
import torch


def masked_scores(scores, attn_mask):
    shape = torch.broadcast_shapes(scores.shape, attn_mask.shape)
    attn_bias = torch.zeros(shape, dtype=scores.dtype, device=scores.device)
    attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))
    return scores + attn_bias

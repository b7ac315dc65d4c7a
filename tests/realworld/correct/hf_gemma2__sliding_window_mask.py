# Source: huggingface/transformers, src/transformers/models/gemma2/modeling_gemma2.py (v4.44),
# Gemma2DecoderLayer.forward: `sliding_window_mask = torch.tril(torch.ones_like(attention_mask,
# dtype=torch.bool), diagonal=-self.sliding_window)`, then `attention_mask =
# torch.where(sliding_window_mask, min_dtype, attention_mask)` on top of the causal mask.
# Adapted to the contract: a bool (L, L) mask, True = may attend, instead of Gemma 2's additive
# 4-D mask: the causal part is `tril`, and what Gemma 2 fills with min_dtype is taken out with
# `& ~sliding_window_mask`; seq_len and window are arguments instead of the layer's config.
# Kept: tril(diagonal=-sliding_window) for "too far back" (key j with i - j >= window).
# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    causal = torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool))
    sliding_window_mask = torch.tril(torch.ones_like(causal, dtype=torch.bool), diagonal=-window)
    return causal & ~sliding_window_mask

# Source: huggingface/transformers, src/transformers/modeling_flash_attention_utils.py
# (flash_kwargs = {"window_size": (sliding_window, sliding_window)}); bug report
# https://github.com/huggingface/transformers/issues/39408 ("Off-by-one error when using
# flash_attention with a sliding window"): flash-attn's window [i - w, i + w] is inclusive, so with
# causal masking a query sees sliding_window + 1 keys (same class: ml-explore/mlx-lm PR #390).
# Reproduced in the contract's terms: sliding_window_mask with FlashAttention's inclusive window
# (j >= i - window) under the causal mask.
# expect: window-off-by-one
# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    window_size = (window, window)
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    local = (j >= i - window_size[0]) & (j <= i + window_size[1])
    return local & (j <= i)

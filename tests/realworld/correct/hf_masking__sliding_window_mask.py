# Source: huggingface/transformers, src/transformers/masking_utils.py, causal_mask_function
# (kv_idx <= q_idx), sliding_window_overlay (kv_idx > q_idx - sliding_window) combined by
# and_masks into sliding_window_causal_mask_function.
# Adapted to the contract: the index functions are evaluated on broadcast aranges instead of
# through vmap/flex-attention, returning the (L, L) bool mask (True = attend).
# grade: sliding_window_mask
import torch


def and_masks(*mask_functions):
    def and_mask(batch_idx, head_idx, q_idx, kv_idx):
        result = q_idx.new_ones((), dtype=torch.bool)
        for mask in mask_functions:
            result = result & mask(batch_idx, head_idx, q_idx, kv_idx)
        return result

    return and_mask


def causal_mask_function(batch_idx, head_idx, q_idx, kv_idx):
    return kv_idx <= q_idx


def sliding_window_overlay(sliding_window):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return kv_idx > q_idx - sliding_window

    return inner_mask


def sliding_window_mask(seq_len, window):
    mask_function = and_masks(causal_mask_function, sliding_window_overlay(window))
    q_idx = torch.arange(seq_len)[:, None]
    kv_idx = torch.arange(seq_len)[None, :]
    return mask_function(0, 0, q_idx, kv_idx)

# Source: ml-explore/mlx-lm, mlx_lm/models/base.py, create_causal_mask before PR #390
# (`mask = linds >= rinds`; `if window_size is not None: mask = mask & (linds <= rinds +
# window_size)`); bug report https://github.com/ml-explore/mlx-lm/pull/390 ("The window attention
# mask had one too many values": a window of 128 let a query see itself and 128 earlier keys,
# 129 in all; gpt-oss and Gemma 3 mean 128 in all).
# Reproduced in the contract's terms: sliding_window_mask(seq_len, window) with mlx-lm's
# comparisons written in torch (mx.arange -> torch.arange), so a query sees window + 1 keys.
# expect: window-off-by-one
# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window):
    rinds = torch.arange(seq_len)
    linds = rinds[:, None]
    rinds = rinds[None]
    mask = linds >= rinds
    mask = mask & (linds <= rinds + window)
    return mask

# grade: merge_heads
import torch


def merge_heads(x):
    h = x.shape[1]
    return torch.cat([x[:, i] for i in range(h - 1, -1, -1)], dim=-1)  # (B, L, h * d_head)

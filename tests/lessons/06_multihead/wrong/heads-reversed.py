# grade: split_heads
import torch


def split_heads(x, num_heads):
    d_head = x.shape[-1] // num_heads
    heads = [x[..., i * d_head : (i + 1) * d_head] for i in range(num_heads)]
    return torch.stack(heads[::-1], dim=1)  # (B, h, L, d_head)

# grade: tiled_attention
import torch.nn.functional as F


def tiled_attention(q, k, v, block_size=64, causal=False):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

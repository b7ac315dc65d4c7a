# Source: bentrevett/pytorch-seq2seq, 6 - Attention is All You Need.ipynb,
# MultiHeadAttentionLayer.forward (energy = torch.matmul(Q, K.permute(0, 1, 3, 2)) / self.scale;
# energy = energy.masked_fill(mask == 0, -1e10); attention = torch.softmax(energy, dim=-1));
# bug report https://github.com/bentrevett/pytorch-seq2seq/issues/191: -1e10 cannot be converted
# to half precision.
# Reproduced in the contract's terms: the same lines as scaled_dot_product_attention.
# expect: fill-overflows-fp16
# grade: scaled_dot_product_attention
import math

import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = math.sqrt(Q.shape[-1])
    energy = torch.matmul(Q, K.transpose(-2, -1)) / scale
    if mask is not None:
        energy = energy.masked_fill(mask == 0, -1e10)
    attention = torch.softmax(energy, dim=-1)
    x = torch.matmul(attention, V)
    return x, attention

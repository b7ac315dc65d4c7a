# Source: pytorch/pytorch, torch/nn/functional.py, multi_head_attention_forward; bug report
# https://github.com/pytorch/pytorch/issues/118025 ("Multiheaded attention ignores attn_mask"):
# attn_mask is converted into a float mask of 0/-inf, then never used in the rest of the
# function, so the returned weights ignore it.
# Reproduced in the contract's terms: MultiHeadAttention converts the bool mask (True = attend)
# to an additive one that the scores never receive.
# expect: mask-ignored
# grade: MultiHeadAttention
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        bsz, tgt_len, embed_dim = query.shape
        src_len = key.shape[1]
        q = self.w_q(query).view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.w_k(key).view(bsz, src_len, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.w_v(value).view(bsz, src_len, self.num_heads, self.head_dim).transpose(1, 2)
        attn_mask = None
        if mask is not None and mask.dtype == torch.bool:
            attn_mask = torch.zeros_like(mask, dtype=q.dtype)
            attn_mask = attn_mask.masked_fill(~mask, float("-inf"))
        q = q / math.sqrt(self.head_dim)
        attn_output_weights = q @ k.transpose(-2, -1)
        attn_output_weights = F.softmax(attn_output_weights, dim=-1)
        attn_output = attn_output_weights @ v
        attn_output = attn_output.transpose(1, 2).contiguous().view(bsz, tgt_len, embed_dim)
        return self.w_o(attn_output), attn_output_weights

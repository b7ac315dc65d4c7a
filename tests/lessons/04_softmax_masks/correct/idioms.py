# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
# Lesson 04's exercises in this style. The whole style is every lesson's idioms.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim, keepdim=True))
    return torch.nan_to_num(e / e.sum(dim, keepdim=True), nan=0.0)


def causal_mask(seq_len, device=None):
    return ~torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device), diagonal=1)


def padding_mask(lengths, max_len):
    return torch.lt(torch.arange(max_len, device=lengths.device), lengths.unsqueeze(-1))


def masked_scores(scores, mask):
    return scores.masked_fill(mask.logical_not(), -math.inf)

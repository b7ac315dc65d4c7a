# A learner who likes einsum, torch.where and building things from scratch.
# Lesson 04's exercises in this style. The whole style is every lesson's einsum.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
from torch import nn


def softmax(x, dim=-1):
    # exp(x - log-sum-exp), the log-sum-exp written out, with a guard for rows that are all -inf
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    lse = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
    out = torch.exp(x - lse)
    return torch.where(torch.isneginf(lse), torch.zeros_like(out), out)


def causal_mask(seq_len, device=None):
    idx = torch.arange(seq_len, device=device)
    return idx.unsqueeze(0) <= idx.unsqueeze(1)


def padding_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device).expand(lengths.shape[0], -1) < lengths.unsqueeze(1)


def masked_scores(scores, mask):
    return torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))

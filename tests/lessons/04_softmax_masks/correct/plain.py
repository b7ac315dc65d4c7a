# A learner's straightforward solutions, written the way the notebooks suggest.
# Lesson 04's exercises in this style. The whole style is every lesson's plain.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return torch.where(s > 0, e / s, torch.zeros_like(e))


def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


def padding_mask(lengths, max_len):
    positions = torch.arange(max_len, device=lengths.device)
    return positions[None, :] < lengths[:, None]


def masked_scores(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))

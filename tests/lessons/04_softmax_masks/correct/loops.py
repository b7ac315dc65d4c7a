# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 04's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def softmax(x, dim=-1):
    x = x.movedim(dim, -1)
    m = x[..., 0].clone()
    for i in range(1, x.shape[-1]):
        m = torch.maximum(m, x[..., i])
    m = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(x - m.unsqueeze(-1))
    total = e.sum(-1, keepdim=True)
    out = e / total.masked_fill(total == 0, 1.0)
    return out.movedim(-1, dim)


def causal_mask(seq_len, device=None):
    mask = torch.zeros(seq_len, seq_len, dtype=torch.bool, device=device)
    for i in range(seq_len):
        mask[i, : i + 1] = True
    return mask


def padding_mask(lengths, max_len):
    mask = torch.zeros(lengths.shape[0], max_len, dtype=torch.bool, device=lengths.device)
    for b, n in enumerate(lengths.tolist()):
        mask[b, :n] = True
    return mask


def masked_scores(scores, mask):
    out = scores.clone()
    out.masked_fill_(~mask.expand_as(scores), float("-inf"))
    return out

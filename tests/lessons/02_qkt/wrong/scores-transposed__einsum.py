# grade: attention_scores
# The einsum's output indices swapped: (Lk, Lq) scores.
import torch


def attention_scores(q, k):
    return torch.einsum('...id,...jd->...ji', q, k)

# grade: attention_scores
# k detached: no gradient reaches k.
import torch


def attention_scores(q, k):
    return q @ k.detach().transpose(-2, -1)

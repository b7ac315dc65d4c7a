# grade: masked_scores
import torch


def masked_scores(scores, mask):
    return scores.masked_fill(~mask, torch.finfo(scores.dtype).min)

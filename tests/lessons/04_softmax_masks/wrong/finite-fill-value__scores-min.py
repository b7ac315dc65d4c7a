# grade: masked_scores
# Masked scores set to the smallest score minus 1e4: finite.
import torch


def masked_scores(scores, mask):
    return torch.where(mask, scores, scores.min() - 1e4)

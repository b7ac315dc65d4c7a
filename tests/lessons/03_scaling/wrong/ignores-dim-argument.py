# grade: softmax_entropy
import torch


def softmax_entropy(weights, dim=-1):
    logs = torch.where(weights > 0, weights.log(), torch.zeros_like(weights))
    return -(weights * logs).sum(-1)

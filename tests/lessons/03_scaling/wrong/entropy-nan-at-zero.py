# grade: softmax_entropy
import torch


def softmax_entropy(weights, dim=-1):
    return -(weights * torch.log(weights)).sum(dim=dim)

# grade: softmax_entropy
import torch
def softmax_entropy(weights, dim=-1):
    return -torch.xlogy(weights, weights).mean(dim)

# grade: softmax_entropy
import torch
def softmax_entropy(weights, dim=-1):
    return -(weights * torch.log10(weights.clamp_min(1e-12))).sum(dim)

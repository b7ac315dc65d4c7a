# grade: softmax_entropy
import torch


def softmax_entropy(weights, dim=-1):
    # log(0) would give nan gradients, so the log is taken out of the graph
    log_w = torch.log(weights.clamp_min(torch.finfo(weights.dtype).tiny)).detach()
    return -(weights * log_w).sum(dim=dim)

# Source: pytorch/pytorch, torch/distributions/categorical.py, Categorical.entropy
# (min_real = torch.finfo(self.logits.dtype).min; logits = torch.clamp(self.logits, min=min_real);
# p_log_p = logits * self.probs; return -p_log_p.sum(-1)).
# Adapted to the contract: given the weights (probs) and a dim, logits = log(weights), so the
# clamp turns log 0 into finfo.min and 0 * finfo.min = 0 (0 log 0 = 0).
# grade: softmax_entropy
import torch


def softmax_entropy(weights, dim=-1):
    min_real = torch.finfo(weights.dtype).min
    logits = torch.clamp(torch.log(weights), min=min_real)
    p_log_p = logits * weights
    return -p_log_p.sum(dim)

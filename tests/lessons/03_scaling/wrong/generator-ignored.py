# grade: dot_product_variance
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q = torch.randn(num_samples, d_k)
    k = torch.randn(num_samples, d_k)
    return (q * k).sum(-1).var().item()

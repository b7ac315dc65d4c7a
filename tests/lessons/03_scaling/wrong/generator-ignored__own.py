# grade: dot_product_variance
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(num_samples, d_k, generator=g)
    k = torch.randn(num_samples, d_k, generator=g)
    return (q * k).sum(-1).var().item()

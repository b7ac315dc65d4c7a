# grade: dot_product_variance
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q = torch.randn(20_000, d_k, generator=generator)
    k = torch.randn(20_000, d_k, generator=generator)
    return (q * k).sum(-1).var().item()

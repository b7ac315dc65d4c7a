# grade: dot_product_variance
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    n = min(num_samples, 200_000)  # enough for a precise estimate
    q = torch.randn(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return (q * k).sum(-1).var().item()

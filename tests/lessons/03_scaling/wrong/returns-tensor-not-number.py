# grade: dot_product_variance
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q = torch.randn(num_samples, d_k, generator=generator)
    k = torch.randn(num_samples, d_k, generator=generator)
    return torch.einsum("nd,nd->n", q, k).var()

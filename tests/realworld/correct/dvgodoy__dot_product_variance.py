# Source: dvgodoy/PyTorchStepByStep (Daniel Voigt Godoy, "Deep Learning with PyTorch Step-by-Step"),
# Chapter 9, "Dot Product's Standard Deviation":
#   n_dims = 10
#   vector1 = torch.randn(10000, 1, n_dims)
#   vector2 = torch.randn(10000, 1, n_dims).permute(0, 2, 1)
#   torch.bmm(vector1, vector2).squeeze().var()
# ("If you try different values for the number of dimensions, you'll see that, on average, the
# variance equals the number of dimensions").
# Adapted to the contract: n_dims is d_k and 10000 is num_samples; the generator is passed to
# torch.randn; the variance is returned as a float (.item()).
# Kept: (N, 1, d) and (N, d, 1) batches, torch.bmm, .squeeze() of the (N, 1, 1) products, .var().
# grade: dot_product_variance
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    n_dims = d_k
    vector1 = torch.randn(num_samples, 1, n_dims, generator=generator)
    vector2 = torch.randn(num_samples, 1, n_dims, generator=generator).permute(0, 2, 1)
    return torch.bmm(vector1, vector2).squeeze().var().item()

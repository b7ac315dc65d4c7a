# grade: dot_product_variance
# One draw split in halves for q and k: num_samples / 2 pairs.
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    x = torch.randn(num_samples, d_k, generator=generator)
    q, k = x[: num_samples // 2], x[num_samples // 2 :]
    n = min(len(q), len(k))
    return (q[:n] * k[:n]).sum(-1).var().item()

"""Lesson 03: why attention divides by sqrt(d_k), measured.

If ``q`` and ``k`` have independent N(0, 1) entries, ``q · k = sum_i q_i k_i`` is a sum of
``d_k`` independent terms of mean 0 and variance 1, so ``Var(q · k) = d_k``.  Large scores push
softmax towards a one-hot distribution (low entropy) where its gradients vanish; dividing by
``sqrt(d_k)`` restores unit variance.

Shape legend: N samples, K d_k.
"""

import torch

__all__ = ["dot_product_variance", "softmax_entropy"]


def dot_product_variance(
    d_k: int, num_samples: int = 100_000, generator: torch.Generator | None = None
) -> float:
    """Empirical variance of ``q · k`` for ``q, k`` with i.i.d. N(0, 1) entries (≈ ``d_k``).

    Memory is ``2 * num_samples * d_k`` floats, e.g. 51 MB for ``d_k=64``.
    """
    q = torch.randn(num_samples, d_k, generator=generator)  # (N, K)
    k = torch.randn(num_samples, d_k, generator=generator)  # (N, K)
    dots = (q * k).sum(dim=-1)  # (N,)
    return dots.double().var().item()


def softmax_entropy(weights: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Shannon entropy in nats of each distribution along ``dim``: ``H(p) = -sum_i p_i log p_i``.

    With the convention ``0 · log 0 = 0`` (the limit of ``p log p`` as ``p -> 0``), which
    ``torch.xlogy(p, p)`` implements.  Uniform over n items: ``log n``; one-hot: 0.

    Returns:
        ``weights`` with ``dim`` removed.
    """
    return -torch.xlogy(weights, weights).sum(dim=dim)

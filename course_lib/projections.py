"""Lesson 01: turning token vectors into queries, keys and values.

Every token vector ``x_i`` is projected three times, by three learned matrices:

    q_i = x_i W_Q      (what am I looking for?)
    k_i = x_i W_K      (what do I contain?)
    v_i = x_i W_V      (what do I pass on if I am chosen?)

Shape legend: B batch (any number of leading dims), L tokens, M d_model, K d_k, V d_v.
"""

import torch
from torch import nn

__all__ = ["project_qkv", "QKVProjection"]


def project_qkv(
    x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Project ``x`` into queries, keys and values with plain matrices.

    ``Q = X W_Q``, ``K = X W_K``, ``V = X W_V``.

    Args:
        x: token vectors, ``(..., L, M)``.
        w_q, w_k: ``(M, K)``.  w_v: ``(M, V)``.

    Returns:
        ``(q, k, v)`` with shapes ``(..., L, K)``, ``(..., L, K)``, ``(..., L, V)``.
    """
    q = x @ w_q  # (..., L, M) @ (M, K) -> (..., L, K)
    k = x @ w_k  # (..., L, M) @ (M, K) -> (..., L, K)
    v = x @ w_v  # (..., L, M) @ (M, V) -> (..., L, V)
    return q, k, v


class QKVProjection(nn.Module):
    """The same three projections as learnable ``nn.Linear`` layers (no bias).

    ``nn.Linear`` stores its matrix transposed, ``(out, in)``, and computes ``x @ weight.T``;
    so ``self.w_q.weight.T`` plays the role of ``W_Q`` in :func:`project_qkv`.
    """

    def __init__(self, d_model: int, d_k: int, d_v: int):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        q = self.w_q(x)  # (..., L, M) -> (..., L, K)
        k = self.w_k(x)  # (..., L, M) -> (..., L, K)
        v = self.w_v(x)  # (..., L, M) -> (..., L, V)
        return q, k, v

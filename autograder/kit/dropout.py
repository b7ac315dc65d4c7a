"""Dropout judged by its statistics: in training mode a fraction ≈ p of the values it acts on
are exactly 0 and the others are scaled by 1 / (1 - p); in eval mode nothing changes."""

from __future__ import annotations

import torch


def dropout_problem(out: torch.Tensor, clean: torch.Tensor, p: float) -> str | None:
    """None when ``out`` is ``clean`` under dropout with probability ``p``, else what is wrong:
    ``"ignored"`` (nothing dropped), ``"scale"`` (the kept values are not clean / (1 - p)) or
    ``"rate"`` (the fraction dropped is far from p)."""
    out, clean = out.double(), clean.double()
    live = clean != 0
    n = int(live.sum())
    dropped = (out == 0) & live
    if torch.allclose(out, clean, rtol=1e-4, atol=1e-5):
        return "ignored"
    kept = ~dropped
    if not torch.allclose(out[kept], clean[kept] / (1 - p), rtol=1e-3, atol=1e-4):
        return "scale"
    fraction = int(dropped.sum()) / max(n, 1)
    if abs(fraction - p) > 5 * (p * (1 - p) / max(n, 1)) ** 0.5 + 1 / max(n, 1):
        return "rate"
    return None


def fraction_zero(out: torch.Tensor, clean: torch.Tensor) -> float:
    """The fraction of ``clean``'s nonzero values that are exactly 0 in ``out``."""
    live = clean != 0
    return float(((out == 0) & live).sum()) / max(int(live.sum()), 1)

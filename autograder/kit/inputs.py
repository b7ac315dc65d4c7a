"""Inputs for the checks: seeded random tensors and masks, and the dtypes every check tries.

Every input comes from a generator seeded by the check (``generator(seed)``), never from global
random state, so a check sees the same inputs on every run and in every process; except where
the learner's code must not know them ahead (``generator()``, seeded by the operating system:
lesson 09's memory measures), a check whose verdict does not depend on which inputs it draws.
"""

from __future__ import annotations

import random

import torch


def generator(seed: int | None = None) -> torch.Generator:
    """A generator seeded with ``seed``; without one, with a seed drawn from the operating
    system's randomness for this run alone, which the learner's code cannot know ahead."""
    drawn = random.SystemRandom().getrandbits(63) if seed is None else seed
    return torch.Generator().manual_seed(drawn)


def randn(g: torch.Generator, *shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=g).to(dtype)


def rand_mask(g: torch.Generator, *shape: int, p: float = 0.7) -> torch.Tensor:
    """A random bool mask, True with probability p, with at least one True per row."""
    m = torch.rand(*shape, generator=g) < p
    m[..., 0] |= ~m.any(-1)
    return m


def low_precision_dtypes() -> tuple[torch.dtype, ...]:
    return (torch.float16, torch.bfloat16)


def no_full_rows(g, *shape):
    """A random mask with at least one True and one False in every row."""
    m = rand_mask(g, *shape, p=0.5)
    m[..., -1] &= ~m[..., :-1].all(-1)
    return m


def fully_masked(lq, lk):
    """A causal (lq, lk) mask in which query 1 may attend to nothing."""
    m = torch.ones(lq, lk, dtype=torch.bool).tril()
    m[1] = False  # query 1 may attend to nothing
    return m


def additive(mask, bias=None):
    """A bool mask as an additive float32 one: 0 (plus ``bias``) where allowed, -inf where not."""
    allowed = torch.zeros(mask.shape) if bias is None else bias
    return allowed.masked_fill(~mask, -float("inf"))


def bias_mask(g, *shape):
    """A float mask without -inf: half its entries exactly 0, the others a finite bias (as ALiBi
    adds), so that using it as a bool mask, ignoring it or subtracting it all show."""
    return randn(g, *shape) * 2 * rand_mask(g, *shape, p=0.5)

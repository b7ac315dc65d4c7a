"""Lesson 02: attention scores, unscaled ``q @ k^T``.

Lq queries, Lk keys, K d_k.
"""

from __future__ import annotations

import torch

from autograder.checks._compare import (
    Call,
    expect_close,
    expect_meta,
    generator,
    low_precision_dtypes,
    on_meta,
    randn,
)
from autograder.registry import exercise


def scores(q, k):
    return q @ k.transpose(-2, -1)  # (..., Lq, K) @ (..., K, Lk) -> (..., Lq, Lk)


def transpose_mutants(scale=lambda q: 1.0):
    """Mistakes in transposing k, each also scaled by ``scale(q)``."""
    return (
        ("forgot-transpose-k", lambda q, k: q @ k * scale(q)),
        ("transpose-batch-dims", lambda q, k: q @ _reversed(k) * scale(q)),
        ("transpose-batch-dims", lambda q, k: q @ k.t() * scale(q)),
        ("transpose-batch-dims", lambda q, k: q @ k.transpose(0, 1) * scale(q)),
    )


def _reversed(k):
    """k.T: for more than 2 dims it reverses them all (deprecated, with a warning)."""
    return k.permute(*range(k.dim() - 1, -1, -1))


SCORE_MUTANTS = transpose_mutants()

# (q shape, k shape), smallest first: square (so q @ k runs and is just wrong), non-square 2-D,
# then leading batch dimensions (where k.T and transpose(0, 1) break).
SCORE_CASES = (
    ((4, 4), (4, 4)),
    ((2, 5), (3, 5)),
    ((2, 3, 4), (2, 5, 4)),
    ((2, 2, 3, 4), (2, 2, 5, 4)),
)


def check_scores_like(sub, name, reference, mutants, cases) -> None:
    """The common check of attention_scores and scaled_attention_scores."""
    g = generator(3)
    for qs, ks in cases:
        q, k = randn(g, *qs), randn(g, *ks)
        c = Call(name, q, k)
        out = c.run(sub, mutants=mutants)
        expect_close(out, reference(q.double(), k.double()), c, dtype=q.dtype, mutants=mutants)
    for dtype in low_precision_dtypes():
        q, k = randn(g, 2, 3, 8, dtype=dtype), randn(g, 2, 5, 8, dtype=dtype)
        c = Call(name, q, k)
        expect_close(c.run(sub), reference(q.double(), k.double()), c, dtype=dtype)
    with on_meta():  # meta tensors have shapes but no data
        q, k = torch.empty(2, 3, 4, device="meta"), torch.empty(2, 5, 4, device="meta")
        c = Call(name, q, k)
        expect_meta(c.run(sub), c, (2, 3, 5), torch.float32)


@exercise("attention_scores", lesson="02", points=1)
def check_attention_scores(sub) -> None:
    check_scores_like(sub, "attention_scores", scores, SCORE_MUTANTS, SCORE_CASES)

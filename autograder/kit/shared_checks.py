"""Whole checks that several exercises share (``attention_scores`` and its scaled variant)."""

from __future__ import annotations

import torch

from autograder.kit.calling import Call
from autograder.kit.compare import expect_close, expect_meta
from autograder.kit.inputs import generator, low_precision_dtypes, randn
from autograder.kit.meta import on_meta

# After each exercise's own cases: self-attention's square scores (Lq = Lk, q != k: k @ q^T has
# the right shape there, and only its values tell), and five dims (any number of leading dims).
EVERY_SCORES_CASE = (((2, 4, 6), (2, 4, 6)), ((2, 1, 2, 3, 4), (2, 1, 2, 5, 4)))


def check_scores_like(sub, name, reference, mutants, cases) -> None:
    """The common check of attention_scores and scaled_attention_scores."""
    g = generator(3)
    inputs = [(randn(g, *qs), randn(g, *ks)) for qs, ks in (*cases, *EVERY_SCORES_CASE)]
    # heads as split_heads makes them in lesson 06: (B, L, h, d_k).transpose(1, 2), a view that
    # is not contiguous (code that flattens with .view() fails there)
    inputs.append((randn(g, 2, 3, 2, 4).transpose(1, 2), randn(g, 2, 5, 2, 4).transpose(1, 2)))
    for q, k in inputs:
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

"""Lesson 03: scaling. ``scaled_attention_scores``, ``dot_product_variance``, ``softmax_entropy``.

Lq queries, Lk keys, K d_k.
"""

from __future__ import annotations

import torch

from autograder.kit import (
    Call,
    check_scores_like,
    exercise,
    expect_close,
    expect_meta,
    fail,
    fmt_num,
    fmt_type,
    generator,
    low_precision_dtypes,
    on_meta,
    scale_mutants,
    scores,
    transpose_mutants,
)
from autograder.kit.expected import entropy, scaled_scores

SCALED_MUTANTS = (
    *transpose_mutants(scale=lambda q: q.shape[-1] ** -0.5),
    *scale_mutants(lambda q, k, scale: scores(q, k) * scale),
)

SCALED_CASES = (
    ((3, 4), (5, 4)),  # d_k = 4: / d_k, * sqrt(d_k) and no scaling all differ; Lq != Lk != d_k
    ((3, 9), (5, 9)),  # Lq, Lk and sqrt(d_k) all differ: a scale from a length shows
    ((2, 3, 4), (2, 5, 4)),
    ((2, 2, 3, 4), (2, 2, 5, 4)),
)


@exercise("scaled_attention_scores")
def check_scaled_attention_scores(sub) -> None:
    check_scores_like(sub, "scaled_attention_scores", scaled_scores, SCALED_MUTANTS, SCALED_CASES)


# ---- dot_product_variance ----------------------------------------------------------------------


@exercise("dot_product_variance")
def check_dot_product_variance(sub) -> None:
    for d_k in (16, 64, 1):
        c = Call("dot_product_variance", d_k, num_samples=20_000)
        value = c.run(sub)
        if isinstance(value, torch.Tensor):
            raise fail(
                f"{c} returned {fmt_type(value)}; the contract asks for a float.",
                "returns-tensor-not-number",
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(f"{c} returned {fmt_type(value)}; expected a float close to {d_k}.")
        if abs(value - d_k) <= 0.15 * d_k:
            continue
        mistake = None
        if d_k > 1 and abs(value - 1) <= 0.15:
            mistake = "variance-elementwise"
        elif d_k > 1 and abs(value - d_k**0.5) <= 0.15 * d_k**0.5:
            mistake = "variance-returns-std"
        raise fail(
            f"{c} returned {fmt_num(value)}; expected about {d_k} (for i.i.d. N(0, 1) entries "
            f"q·k is a sum of {d_k} products of variance 1).",
            mistake,
        )
    c = Call("dot_product_variance", 8)
    value = c.run(sub)
    if not isinstance(value, (int, float)) or abs(value - 8) > 0.1 * 8:
        raise fail(f"{c} (default num_samples) returned {fmt_type(value)} {value!r}; expected ≈ 8.")
    calls = [
        Call("dot_product_variance", 8, num_samples=2_000, generator=generator(5)) for _ in "ab"
    ]
    first, second = (c.run(sub) for c in calls)
    if first != second:
        raise fail(
            f"{calls[0]} returned {fmt_num(first)}, then {fmt_num(second)} with a generator seeded "
            "the same way: the samples must come from the generator you are given.",
            "generator-ignored",
        )
    _check_num_samples_used(sub)


def _check_num_samples_used(sub) -> None:
    """The estimate's spread must follow num_samples, on fixed seeds (so never flaky): 2 samples
    give estimates all over the place, 400 000 samples pin the variance of a product of two
    N(0, 1) numbers (1) to within 1% (3% allowed: the reference's relative spread is 0.45%)."""
    tiny = [
        Call("dot_product_variance", 16, num_samples=2, generator=generator(s)) for s in range(5)
    ]
    values = [c.run(sub) for c in tiny]
    if all(isinstance(v, (int, float)) and abs(v - 16) <= 0.2 * 16 for v in values):
        raise fail(
            f"{tiny[0]} and four other seeds all returned about 16 ({fmt_num(min(values))} to "
            f"{fmt_num(max(values))}): from 2 samples the estimate must scatter widely, so your "
            "code draws some other number of samples.",
            "num-samples-ignored",
        )
    for seed in range(4):
        c = Call("dot_product_variance", 1, num_samples=400_000, generator=generator(seed))
        value = c.run(sub)
        if isinstance(value, (int, float)) and abs(value - 1) > 0.03:
            raise fail(
                f"{c} returned {fmt_num(value)}; from 400 000 samples the estimate is within "
                "1% of 1, so your code uses fewer samples than it is given.",
                "num-samples-ignored",
            )


# ---- softmax_entropy ---------------------------------------------------------------------------


ENTROPY_MUTANTS = (
    ("entropy-log2", lambda p, dim=-1: entropy(p, dim, torch.log2)),
    ("entropy-nan-at-zero", lambda p, dim=-1: -(p * p.log()).sum(dim)),
    ("entropy-sign", lambda p, dim=-1: -entropy(p, dim)),
    ("ignores-dim-argument", lambda p, dim=-1: entropy(p, -1)),
)


def _distributions(g, *shape, dim=-1, zeros=False):
    p = torch.rand(*shape, generator=g) + 0.05
    if zeros:
        p = p * (torch.rand(*shape, generator=g) < 0.6)
        first = torch.zeros(shape[dim]).index_fill(0, torch.tensor([0]), 1.0)
        view = [1] * len(shape)
        view[dim] = shape[dim]
        p = p + (p.sum(dim, keepdim=True) == 0) * first.view(view)  # no all-zero row
    return p / p.sum(dim, keepdim=True)


@exercise(
    "softmax_entropy",
    forbid=("torch.special.entr", "aten.special_entr", "torch.distributions.Categorical"),
)
def check_softmax_entropy(sub) -> None:
    g = generator(4)
    one_hot = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
    cases = (
        (_distributions(g, 2, 4), {}),  # no zeros
        (one_hot, {}),  # 0 · log 0 = 0
        (_distributions(g, 4, 3, dim=0), {"dim": 0}),  # columns are the distributions
        (_distributions(g, 2, 3, 5, dim=1, zeros=True), {"dim": 1}),
    )
    for p, kwargs in cases:
        c = Call("softmax_entropy", p, **kwargs)
        out = c.run(sub, mutants=ENTROPY_MUTANTS)
        want = entropy(p.double(), **kwargs)
        expect_close(out, want, c, dtype=p.dtype, mutants=ENTROPY_MUTANTS)
    for dtype in low_precision_dtypes():
        p = _distributions(g, 3, 6, zeros=True).to(dtype)
        c = Call("softmax_entropy", p)
        out = c.run(sub, mutants=ENTROPY_MUTANTS)
        expect_close(out, entropy(p.double()), c, dtype=dtype, mutants=ENTROPY_MUTANTS)
    with on_meta():  # meta tensors have shapes but no data
        c = Call("softmax_entropy", torch.empty(2, 3, 4, device="meta"), dim=1)
        expect_meta(c.run(sub), c, (2, 4), torch.float32)

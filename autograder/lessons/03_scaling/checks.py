"""Lesson 03: scaling. ``scaled_attention_scores``, ``dot_product_variance``, ``softmax_entropy``.

Lq queries, Lk keys, K d_k.
"""

from __future__ import annotations

import torch

from autograder.i18n import _
from autograder.kit import (
    Call,
    CheckFailure,
    check_scores_like,
    exercise,
    expect_close,
    expect_meta,
    fail,
    fmt_num,
    fmt_returned,
    fmt_type,
    generator,
    low_precision_dtypes,
    on_meta,
    randn,
    scale_mutants,
    scores,
    transpose_mutants,
)
from autograder.kit.expected import entropy, scaled_scores
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    wide_call,
    with_rules,
)

SCALED_MUTANTS = (
    *transpose_mutants(scale=lambda q: q.shape[-1] ** -0.5),
    *scale_mutants(lambda q, k, scale: scores(q, k) * scale),
    *(  # math.isqrt(d_k) is int(sqrt(d_k)); right only for a perfect square (4, 9, 64)
        ("scale-rounded-sqrt", lambda q, k, r=r: scores(q, k) / r(q.shape[-1] ** 0.5))
        for r in (int, round)
    ),
)

SCALED_CASES = (
    ((3, 4), (5, 4)),  # d_k = 4: / d_k, * sqrt(d_k) and no scaling all differ; Lq != Lk != d_k
    ((3, 9), (5, 9)),  # Lq, Lk and sqrt(d_k) all differ: a scale from a length shows
    ((2, 3, 4), (2, 5, 4)),
    ((2, 2, 3, 4), (2, 2, 5, 4)),
    ((2, 3, 8), (2, 5, 8)),  # d_k = 8 is not a perfect square: sqrt(8) is not a whole number
)


@exercise("scaled_attention_scores")
def check_scaled_attention_scores(sub) -> None:
    try:
        check_scores_like(
            sub, "scaled_attention_scores", scaled_scores, SCALED_MUTANTS, SCALED_CASES
        )
    except CheckFailure as failure:
        if failure.mistake is None:
            _check_scale_follows_dk(sub)
        raise


def _check_scale_follows_dk(sub) -> None:
    """A scale that is the same for two d_k (a constant such as sqrt(512), d_model's) is named."""
    g = generator(3)
    found = []
    for d_k in (4, 9):
        q, k = randn(g, 3, d_k), randn(g, 5, d_k)
        c = Call("scaled_attention_scores", q, k)
        out = c.run(sub)
        plain = scores(q.double(), k.double())
        if not isinstance(out, torch.Tensor) or out.shape != plain.shape:
            return
        scale = ((out.double() * plain).sum() / (plain * plain).sum()).item()
        if not torch.allclose(out.double(), plain * scale, rtol=1e-4, atol=1e-5):
            return  # not a scaled q @ k^T at all
        found.append((c, scale))
    (c4, s4), (c9, s9) = found
    if abs(s4 - s9) <= 1e-4 * abs(s4):
        raise fail(
            _(
                "{call} and {other} both scale q @ k^T by {scale} (1/{inverse}): the scale must "
                "follow d_k = q.shape[-1], 1/sqrt(4) = 0.5 and 1/sqrt(9) = 0.3333."
            ).format(call=c4, other=c9, scale=fmt_num(s4), inverse=fmt_num(1 / s4)),
            "scale-not-from-dk",
        )


# ---- dot_product_variance ----------------------------------------------------------------------


@exercise("dot_product_variance")
def check_dot_product_variance(sub) -> None:
    for d_k in (16, 64, 1):
        c = Call("dot_product_variance", d_k, num_samples=20_000)
        value = c.run(sub)
        if isinstance(value, torch.Tensor):
            raise fail(
                _("{call} returned {type}; the contract asks for a float.").format(
                    call=c, type=fmt_type(value)
                ),
                "returns-tensor-not-number",
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(expected_float(c, value, d_k))
        if not isinstance(value, float):
            raise fail(
                _(
                    "{call} returned the int {value}; the contract asks for a float: the "
                    "estimate itself, not rounded."
                ).format(call=c, value=value)
            )
        if abs(value - d_k) <= 0.15 * d_k:
            continue
        mistake = None
        if d_k > 1 and abs(value - 1) <= 0.15:
            mistake = "variance-elementwise"
        elif d_k > 1 and abs(value - d_k**0.5) <= 0.15 * d_k**0.5:
            mistake = "variance-returns-std"
        elif abs(value - d_k) <= 0.5 * d_k:
            _check_num_samples_used(sub)  # a noisy estimate of d_k: too few samples?
        raise fail(
            _(
                "{call} returned {value}; expected about {d_k} (for i.i.d. N(0, 1) entries "
                "q·k is a sum of {d_k} products of variance 1)."
            ).format(call=c, value=fmt_num(value), d_k=d_k),
            mistake,
        )
    c = Call("dot_product_variance", 8)
    value = c.run(sub)
    if not isinstance(value, (int, float)) or abs(value - 8) > 0.1 * 8:
        raise fail(
            _("{call} (default num_samples) returned {type} {value}; expected ≈ 8.").format(
                call=c, type=fmt_type(value), value=fmt_returned(value)
            )
        )
    _check_generator_used(sub)
    _check_num_samples_used(sub)


def _check_generator_used(sub) -> None:
    """The same seed gives the same estimate; two seeds give two estimates."""
    calls = [
        Call("dot_product_variance", 8, num_samples=2_000, generator=generator(s))
        for s in (5, 5, 6)
    ]
    first, second, other = (c.run(sub) for c in calls)
    if first != second:
        raise fail(
            _(
                "{call} returned {first}, then {second} with a generator seeded the same way: "
                "the samples must come from the generator you are given."
            ).format(call=calls[0], first=fmt_num(first), second=fmt_num(second)),
            "generator-ignored",
        )
    if first == other and first == float(8):
        raise fail(
            _(
                "{call} and {other} both returned exactly {value}, d_k itself: the exercise "
                "measures the variance of sampled dot products, it does not return d_k."
            ).format(call=calls[0], other=calls[2], value=fmt_num(first)),
            "variance-returns-d-k",
        )
    if first == other:
        raise fail(
            _(
                "{call} and {other} both returned {value}: two generators seeded differently "
                "must give different samples, so your code draws from something else "
                "(reseeding inside, torch.manual_seed(...), also resets the random numbers of "
                "the rest of the program: a side effect)."
            ).format(call=calls[0], other=calls[2], value=fmt_num(first)),
            "generator-ignored",
        )


# The precision check: num_samples=400_000 with d_k=1 on seeds PRECISION_SEEDS. A correct estimate
# of Var(q·k) = 1 from N samples has standard deviation sqrt(8 / N) (the products q_i k_i have
# fourth moment E[q^4] E[k^4] = 9, so Var(s^2) = (9 - 1) / N): 0.0045 for N = 400 000.
PRECISION_N = 400_000
PRECISION_SEEDS = 256
# Code that draws in one of the usual orders is recognised exactly (same generator, same numbers);
# any other code is judged by sum_i (v_i - 1)^2 / (8 / N) over the seeds, which for correct code
# is chi-square with PRECISION_SEEDS degrees of freedom (each v_i is normal to within a skewness
# of 0.014). Above PRECISION_LIMIT (its 1 - 1e-7 quantile) it fails: a false failure has a
# probability under 1e-7 (the limit is 391.5). Using half of the samples doubles the statistic's
# expectation (256 -> 512: caught with probability 0.998), a quarter or fewer is always caught; a
# cap at 300 000 of 400 000 is too close to tell (caught with probability 0.05).


def _chi2_quantile(dof: int, tail: float) -> float:
    """x with P(chi2_dof > x) = tail, by bisection on torch's regularised gamma function."""
    half = torch.tensor(dof / 2, dtype=torch.float64)
    lo, hi = 0.0, 100.0 * dof
    for _i in range(200):
        mid = (lo + hi) / 2
        if torch.special.gammaincc(half, torch.tensor(mid / 2, dtype=torch.float64)) > tail:
            lo = mid
        else:
            hi = mid
    return hi


PRECISION_LIMIT = _chi2_quantile(PRECISION_SEEDS, 1e-7)


def _usual_estimates(seed: int) -> list[float]:
    """What correct code gives on generator(seed) (d_k = 1), drawing in each usual order: q then k
    (or k then q: the products are the same), one (2, N, d_k) draw, or one (N, 2 * d_k) draw split
    in two; in float32 or float64."""
    out = []
    for dtype in (torch.float32, torch.float64):
        g = generator(seed)
        q, k = (torch.randn(PRECISION_N, 1, generator=g, dtype=dtype) for _i in "qk")
        out.append((q.double() * k.double()).sum(-1).var().item())
        pair = torch.randn(PRECISION_N, 2, generator=generator(seed), dtype=dtype).double()
        out.append((pair[:, 0] * pair[:, 1]).var().item())
    return out


def _check_num_samples_used(sub) -> None:
    """The estimate's spread must follow num_samples: 2 samples give estimates all over the place,
    400 000 samples pin the variance of a product of two N(0, 1) numbers (1) to within 1%."""
    # From 2 samples the estimate is 16 * chi2_1 (about): within 20% of 16 with probability 0.098,
    # on all 8 seeds with probability 0.098 ** 8 < 1e-8 for correct code.
    tiny = [
        Call("dot_product_variance", 16, num_samples=2, generator=generator(s)) for s in range(8)
    ]
    values = [c.run(sub) for c in tiny]
    if all(isinstance(v, (int, float)) and abs(v - 16) <= 0.2 * 16 for v in values):
        raise fail(
            _(
                "{call} and seven other seeds all returned about 16 ({low} to {high}): from 2 "
                "samples the estimate must scatter widely, so your code draws some other number "
                "of samples."
            ).format(call=tiny[0], low=fmt_num(min(values)), high=fmt_num(max(values))),
            "num-samples-ignored",
        )
    calls = [
        Call("dot_product_variance", 1, num_samples=PRECISION_N, generator=generator(seed))
        for seed in range(PRECISION_SEEDS)
    ]
    values = [_float_or_fail(calls[seed], sub) for seed in range(3)]
    if all(
        any(abs(v - u) <= 1e-5 * u for u in _usual_estimates(seed)) for seed, v in enumerate(values)
    ):
        return  # the very numbers of a usual draw order on three seeds: every sample is used
    values += [_float_or_fail(c, sub) for c in calls[3:]]
    statistic = sum((v - 1) ** 2 for v in values) * PRECISION_N / 8
    if statistic > PRECISION_LIMIT:
        spread = (statistic / PRECISION_SEEDS * 8 / PRECISION_N) ** 0.5
        used = PRECISION_N * PRECISION_SEEDS / statistic
        raise fail(
            _(
                "{call} and {others} other seeds gave estimates of 1 that are off by {spread} "
                "(root mean square); 400 000 samples give 0.0045, as if your code used about "
                "{used:,.0f}: use every sample you are asked for."
            ).format(call=calls[0], others=PRECISION_SEEDS - 1, spread=fmt_num(spread), used=used),
            "num-samples-ignored",
        )


def _float_or_fail(c: Call, sub) -> float:
    value = c.run(sub)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(expected_float(c, value, 1))
    try:
        return float(value)
    except OverflowError:  # an int past float's range (red team round 17)
        raise fail(expected_float(c, value, 1)) from None


def expected_float(c: Call, value, near) -> str:
    return _("{call} returned {type}; expected a float close to {value}.").format(
        call=c, type=fmt_type(value), value=near
    )


# ---- softmax_entropy ---------------------------------------------------------------------------


ENTROPY_MUTANTS = (
    ("entropy-log2", lambda p, dim=-1: entropy(p, dim, torch.log2)),
    ("entropy-log2", lambda p, dim=-1: entropy(p, dim, torch.log10)),
    ("entropy-mean-not-sum", lambda p, dim=-1: entropy(p, dim) / p.shape[dim]),
    ("entropy-nan-at-zero", lambda p, dim=-1: -(p * p.log()).sum(dim)),
    # the NaN "fixed" after the sum: a distribution with a zero gets entropy 0
    ("entropy-nan-at-zero", lambda p, dim=-1: (-(p * p.log()).sum(dim)).nan_to_num(0.0)),
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


def _rules_scaled_attention_scores(sub) -> None:
    g = generator(104)
    c = Call("scaled_attention_scores", randn(g, 1, 1, 1, 4), randn(g, 1, 1, 1, 4))
    expect_contract_rules(sub, c, (1, 1, 1, 1), output=None)
    wide = wide_call("scaled_attention_scores", g, (2, 3, 4), (2, 5, 4))
    expect_true_gradients(sub, wide)


def _rules_softmax_entropy(sub) -> None:
    weights = randn(generator(105), 1, 1, 3).softmax(-1)
    expect_contract_rules(sub, Call("softmax_entropy", weights), (1, 1), output=None)
    weights = randn(generator(105), 2, 3, 4).softmax(-1)  # p log p has two paths from p
    expect_true_gradients(sub, Call("softmax_entropy", weights))


check_scaled_attention_scores = with_rules(
    check_scaled_attention_scores, _rules_scaled_attention_scores
)
check_softmax_entropy = with_rules(check_softmax_entropy, _rules_softmax_entropy)

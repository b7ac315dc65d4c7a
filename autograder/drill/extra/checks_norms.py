"""Checks of the normalisation drills (RMSNorm, LayerNorm) and of ALiBi's bias."""

from __future__ import annotations

import math

import torch

from autograder.drill.extra.judging import (
    expect,
    expect_gradients,
    flat_gradients,
    float64_gradients,
    gradients,
    run,
)
from autograder.i18n import N_
from autograder.kit import Call, construct, generator, load_weights, randn

# ---- RMSNorm and LayerNorm ---------------------------------------------------------------------


def rms(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def layer(x, weight, bias, eps, unbiased=False, eps_outside=False, dim=-1):
    mean = x.mean(dim, keepdim=True)
    var = x.var(dim, keepdim=True, unbiased=unbiased)
    denom = var.sqrt() + eps if eps_outside else torch.sqrt(var + eps)
    return (x - mean) / denom * weight + bias


def rms_mutants(w, eps):
    return (
        ("rmsnorm-subtracts-mean", lambda x: layer(x, w, 0.0, eps)),
        ("norm-eps-outside-sqrt", lambda x: x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps) * w),
        ("norm-weight-ignored", lambda x: rms(x, 1.0, eps)),
        (
            "rmsnorm-root-of-sum",
            lambda x: x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps) * w,
        ),
        ("rmsnorm-root-of-sum", lambda x: x / x.norm(dim=-1, keepdim=True) * w),  # the L2 norm
        (
            "norm-over-wrong-dim",
            lambda x: x * torch.rsqrt(x.pow(2).mean(-2, keepdim=True) + eps) * w,
        ),
    )


def layer_mutants(w, b, eps):
    return (
        ("layernorm-unbiased-variance", lambda x: layer(x, w, b, eps, unbiased=True)),
        ("norm-eps-outside-sqrt", lambda x: layer(x, w, b, eps, eps_outside=True)),
        (  # both at once: the Annotated Transformer's (x - mean) / (x.std(-1) + eps)
            "layernorm-std-plus-eps",
            lambda x: layer(x, w, b, eps, unbiased=True, eps_outside=True),
        ),
        ("norm-weight-ignored", lambda x: layer(x, 1.0, b, eps)),
        ("layernorm-bias-ignored", lambda x: layer(x, w, 0.0, eps)),
        ("layernorm-bias-before-scale", lambda x: (layer(x, 1.0, 0.0, eps) + b) * w),
        ("norm-over-wrong-dim", lambda x: layer(x, w, b, eps, dim=-2)),
        (
            "layernorm-no-centring",
            lambda x: x / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + eps) * w + b,
        ),
    )


def _check_norm(sub, name: str, with_bias: bool) -> None:
    g = generator(31)
    d, eps = 6, 0.25  # a large eps shows where it goes
    obj, label = construct(sub, name, d, eps=eps)
    state = {"weight": 1 + randn(g, d) * 0.5}
    if with_bias:
        state["bias"] = randn(g, d) * 0.5
    load_weights(obj, state, label)
    w, b = state["weight"].double(), state.get("bias", torch.zeros(d)).double()
    if with_bias:
        ref, mutants = (lambda x: layer(x, w, b, eps)), layer_mutants(w, b, eps)
    else:
        ref, mutants = (lambda x: rms(x, w, eps)), rms_mutants(w, eps)
    for shape in ((2, 3, d), (1, 1, d), (4, d), (2, 2, 3, d)):  # size-1 dims, any leading dims
        x = randn(g, *shape) * 3 + 1
        c = Call(label, x, params="forward")
        expect(run(c, obj, mutants), ref(x.double()), c, mutants, dtype=torch.float32)
    x = randn(g, 2, 3, d) * 3 + 1
    weights = randn(g, 2, 3, d)
    got = flat_gradients(gradients(sub, obj, weights, x))
    if with_bias:
        want = float64_gradients(
            lambda x, weight, bias: layer(x, weight, bias, eps),
            weights,
            x,
            params={"weight": state["weight"], "bias": state["bias"]},
        )
    else:
        want = float64_gradients(
            lambda x, weight: rms(x, weight, eps), weights, x, params={"weight": state["weight"]}
        )
    detached = _detached_gradients(weights, x, state, eps) if with_bias else {}
    mistake = "norm-statistics-detached" if _same_grads(got, detached) else None
    expect_gradients(got, want, f"{label} (backward)", mistake)
    obj.to(torch.float16)  # a half-precision model on half-precision inputs stays half
    x = randn(g, 2, 3, d, dtype=torch.float16)
    c = Call(f"{label}.to(float16)", x, params="forward")
    expect(run(c, obj, mutants), ref(x.double()), c, mutants, dtype=torch.float16)
    default, label = construct(sub, name, d)  # eps defaults to a small value
    x = randn(g, 3, d)
    c = Call(label, x, params="forward")
    tol = (1e-3, 1e-3)
    want = rms(x.double(), 1.0, 1e-6) if not with_bias else layer(x.double(), 1.0, 0.0, 1e-5)
    expect(run(c, default), want, c, (), dtype=torch.float32, tol=tol)


def _detached_gradients(weights, x, state, eps) -> dict:
    """LayerNorm's gradients with the variance detached (values unchanged, backward not)."""

    def f(x, weight, bias):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False).detach()
        return (x - mean) / torch.sqrt(var + eps) * weight + bias

    return float64_gradients(f, weights, x, params={k: state[k] for k in ("weight", "bias")})


def _same_grads(got: dict, want: dict) -> bool:
    from autograder.kit.compare import close_mask

    return bool(want) and all(
        got.get(k) is not None
        and got[k].shape == w.shape
        and bool(close_mask(got[k], w, (1e-4, 1e-3)).all())
        for k, w in want.items()
    )


def check_rmsnorm(sub) -> None:
    _check_norm(sub, "RMSNorm", with_bias=False)


def check_layernorm(sub) -> None:
    _check_norm(sub, "LayerNorm", with_bias=True)


# ---- ALiBi ---------------------------------------------------------------------------------------


def slopes(n: int, interleave: bool = True, every: int = 2) -> list[float]:
    """ALiBi's slopes (``every=1``: the extra ones the first of 2m's, a candidate's slip)."""

    def powers(m):
        return [2 ** (-8 * (i + 1) / m) for i in range(m)]

    if math.log2(n).is_integer() or not interleave:
        return powers(n)
    closest = 2 ** math.floor(math.log2(n))
    return powers(closest) + powers(2 * closest)[::every][: n - closest]


def bias_of(s: list[float], seq_len: int, sign: float = -1.0) -> torch.Tensor:
    pos = torch.arange(seq_len, dtype=torch.float64)
    return sign * torch.tensor(s, dtype=torch.float64)[:, None, None] * (pos[:, None] - pos)


RELATIVE = N_(  # how the rows of a failure are shown (judging.expect translates it)
    "as the causal softmax sees them: each row minus its diagonal entry, the entries above the "
    "diagonal as 0"
)


def relative(bias: torch.Tensor) -> torch.Tensor:
    """What the causal softmax sees: each row minus its diagonal entry, on and below the
    diagonal (a per-row constant and the masked upper triangle do not change the weights)."""
    b = bias.double()
    rel = b - b.diagonal(dim1=-2, dim2=-1)[..., :, None]
    L = b.shape[-1]
    upper = torch.ones(L, L, dtype=torch.bool).triu(1)
    return rel.masked_fill(upper, 0.0)


def alibi_mutants():
    def off_by_one(n, L):
        return bias_of([2 ** (-8 * i / n) for i in range(n)], L)

    return (
        ("alibi-sign-flipped", lambda n, L: bias_of(slopes(n), L, sign=1.0)),
        ("alibi-slopes-reversed", lambda n, L: bias_of(slopes(n)[::-1], L)),
        ("alibi-slopes-off-by-one", off_by_one),
        ("alibi-slopes-not-interleaved", lambda n, L: bias_of(slopes(n, interleave=False), L)),
        ("alibi-extra-slopes-not-every-other", lambda n, L: bias_of(slopes(n, every=1), L)),
        ("alibi-same-slope-every-head", lambda n, L: bias_of([slopes(n)[0]] * n, L)),
    )


def check_alibi(sub) -> None:
    mutants = alibi_mutants()
    for n, L in ((8, 5), (1, 1), (4, 7), (12, 4)):  # 12 heads: the paper's interleaved slopes
        c = Call("alibi_bias", n, L)
        want = bias_of(slopes(n), L)
        expect(
            run(c, sub, mutants),
            want,
            c,
            mutants,
            norm=relative,
            norm_note=RELATIVE,
            tol=(1e-5, 1e-4),
        )

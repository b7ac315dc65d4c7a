"""Lesson 05: probes run after a check failed without naming a mistake (often a crash)."""

from __future__ import annotations

from functools import wraps

import torch

from autograder.kit import (
    Call,
    construct,
    expect_attention,
    expect_close,
    generator,
    linear_state,
    load_weights,
    randn,
)
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import self_attention
from autograder.kit.modules import linear
from autograder.kit.repeat import paused


def values_as_wide_as_queries(sub, g, d_model=6, d_k=4, d_v=None):
    """``SelfAttention(d_model, d_k, d_v)`` (d_v = d_k by default) with weights drawn from ``g``,
    loaded, in eval mode: (the module, its label, its weights)."""
    d_v = d_k if d_v is None else d_v
    obj, label = construct(sub, "SelfAttention", d_model, d_k, d_v)
    state = {}
    for n, d in zip("qkv", (d_k, d_k, d_v), strict=True):
        state |= linear_state(g, f"w_{n}", d_model, d, bias=False)
    load_weights(obj, state, label, bias_mistake="projection-has-bias")
    obj.eval()
    return obj, label, state


def _d_v_mistake(sub) -> str | None:
    """``SelfAttention(6, 4, 4)``, whose value width is its query width, right and
    ``SelfAttention(6, 4, 5)`` wrong on the same unmasked call: [scaled-by-d-v] where the wrong
    one is scaled by sqrt(d_v) (trial 47: it was named as reshaped), [output-shaped-like-q]
    otherwise (the output reshaped like q, ``.view(B, L, d_k)``); a failure only with masks is
    something else."""
    g = generator(124)
    x = randn(g, 2, 3, 6)
    agree = []
    for d_v in (4, 5):
        obj, label, state = values_as_wide_as_queries(sub, g, d_v=d_v)
        c = Call(label, x, params="forward")
        out = None
        try:
            out = c.run(obj)
            expect_attention(out, self_attention(state, x), c, x.dtype, ())
            agree.append(True)
        except CheckFailure:
            agree.append(False)
    if agree != [True, False]:
        return None
    try:
        by_d_v = self_attention(state, x, knobs={"scale": 5**-0.5})
        expect_attention(out, by_d_v, c, x.dtype, ())
    except CheckFailure:
        return "output-shaped-like-q"
    return "scaled-by-d-v"


def check_large_inputs(obj, label, state, mutants) -> None:
    """SelfAttention on large activations (scores in the hundreds: exp overflows float32 unless
    each row's max is subtracted), then on positions 1000x apart in scale (one max for the whole
    tensor underflows the small rows): a failure first seen here is that softmax's mistake; then
    large and causally masked (a mask applied after the softmax, even renormalised)."""
    g = generator(128)
    for scale in (30.0, torch.tensor([[100.0], [0.1], [1.0]])):
        x = randn(g, 2, 3, 6) * scale
        c = Call(label, x, params="forward")
        out = c.run(obj, mutants=mutants)
        try:
            expect_attention(out, self_attention(state, x), c, x.dtype, mutants)
        except CheckFailure as failure:
            failure.mistake = failure.mistake or _which_max(out, state, x)
            raise
    # masked: a blocked key scoring far above the allowed ones leaves them 0 after the softmax
    x, causal = randn(g, 2, 3, 6) * 30.0, torch.ones(3, 3, dtype=torch.bool).tril()
    c = Call(label, x, mask=causal, params="forward")
    try:
        out = c.run(obj, mutants=mutants)
        expect_attention(out, self_attention(state, x, causal), c, x.dtype, mutants)
    except CheckFailure as failure:
        failure.mistake = failure.mistake or "mask-after-softmax"
        raise


def _which_max(out, state, x) -> str:
    """[softmax-global-max] where the query holding the largest score of all is right (one max
    for the whole tensor is its own max), [softmax-unstable] otherwise."""
    q, k = (linear(x.double(), state, f"w_{n}") for n in "qk")
    scores = q @ k.transpose(-2, -1)
    b, i = divmod(int(scores.flatten().argmax()) // scores.shape[-1], scores.shape[-2])
    want = self_attention(state, x)[1][b, i]
    try:
        got = out[1][b, i].double()
        right = bool(torch.allclose(got, want, rtol=1e-3, atol=1e-5))
    except (TypeError, IndexError, RuntimeError, AttributeError):
        right = False
    return "softmax-global-max" if right else "softmax-unstable"


def _max_without_keepdim(sub) -> bool:
    """On square scores (Lq = Lk, where the shapes fit), the weights are those of a softmax whose
    row maxes, taken without keepdim, were subtracted along the keys: column j shifted by row j's
    max."""
    g = generator(125)
    q, k, v = randn(g, 3, 4), randn(g, 3, 4), randn(g, 3, 2)  # (L, d): the maxes broadcast
    c = Call("scaled_dot_product_attention", q, k, v)
    scores = q.double() @ k.double().transpose(-2, -1) / 2.0
    e = (scores - scores.amax(-1)).exp()
    out = c.run(sub)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        return False
    expect_close(out[1], e / e.sum(-1, keepdim=True), c, dtype=torch.float32, what="the weights")
    return True


PROBES = {  # exercise: the probe, which says the mistake it finds (None: none)
    "scaled_dot_product_attention": lambda sub: (
        "max-without-keepdim" if _max_without_keepdim(sub) else None
    ),
    "SelfAttention": _d_v_mistake,
}


def naming_after_a_crash(check):
    """``check``; where it fails with no mistake named, the mistake its exercise's probe finds."""
    probe = PROBES[check.__exercise__.name]

    @wraps(check)
    def named(sub) -> None:
        try:
            check(sub)
        except CheckFailure as failure:
            if failure.mistake is None:
                try:
                    with paused():  # the failing call stays the last one made
                        failure.mistake = probe(sub)
                except CheckFailure:
                    pass
            raise

    return named

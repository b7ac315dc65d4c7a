"""Checks of the attention drills beyond the course's: grouped-query and multi-query attention,
cross-attention and the decoder block of an encoder-decoder Transformer. Expected values are
float64 runs of the functions below, which take the known weights the check loads."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from autograder.drill.extra.judging import (
    expect,
    expect_gradients,
    expect_raises,
    flat_gradients,
    float64_gradients,
    gradients,
    run,
)
from autograder.i18n import N_
from autograder.kit import Call, construct, generator, linear_state, load_weights, randn


def _lin(x, state, prefix):
    y = x @ state[f"{prefix}.weight"].double().T
    b = state.get(f"{prefix}.bias")
    return y if b is None else y + b.double()


def heads(
    state,
    query,
    kv,
    mask,
    h,
    g=None,
    *,
    tiled=False,
    scale=None,
    inverted=False,
    prefix="",
    no_wo=False,
):
    """Multi-head attention over query and kv with g key/value heads (g = h: plain MHA), in
    float64 whatever the inputs' dtype (mutants also run on the inputs as given)."""
    query, kv = query.double(), kv.double()
    B, Lq, D = query.shape
    Lk, dh, g = kv.shape[1], D // h, g or h
    q = _lin(query, state, prefix + "w_q").view(B, Lq, h, dh).transpose(1, 2)
    k = _lin(kv, state, prefix + "w_k").view(B, Lk, g, dh).transpose(1, 2)
    v = _lin(kv, state, prefix + "w_v").view(B, Lk, g, dh).transpose(1, 2)
    rep = h // g
    k, v = (t.repeat(1, rep, 1, 1) if tiled else t.repeat_interleave(rep, 1) for t in (k, v))
    s = q @ k.transpose(-2, -1) * (scale if scale is not None else dh**-0.5)
    if mask is not None:
        s = s.masked_fill(mask if inverted else ~mask, float("-inf"))
    out = (torch.softmax(s, -1).nan_to_num(0.0) @ v).transpose(1, 2).reshape(B, Lq, D)
    return out if no_wo else _lin(out, state, prefix + "w_o")


def _state(g, D, kv_out, bias, prefix=""):
    state = {}
    for n, out in (("q", D), ("k", kv_out), ("v", kv_out), ("o", D)):
        state |= linear_state(g, f"{prefix}w_{n}", D, out, bias=bias)
    return state


# ---- grouped-query and multi-query attention -----------------------------------------------------


def _check_grouped(sub, name, args, h, g_kv) -> None:
    gen = generator(41)
    D = 8
    obj, label = construct(sub, name, *args)
    state = _state(gen, D, g_kv * D // h, bias=False)
    load_weights(obj, state, label)
    f = lambda x, mask=None, **k: heads(state, x, x, mask, h, g_kv, **k)  # noqa: E731
    mutants = (
        ("gqa-kv-heads-tiled", lambda x, mask=None: f(x, mask, tiled=True)),
        ("scaled-by-d-model", lambda x, mask=None: f(x, mask, scale=D**-0.5)),
        ("mask-polarity-inverted", lambda x, mask=None: f(x, mask, inverted=True)),
        ("missing-output-projection", lambda x, mask=None: f(x, mask, no_wo=True)),
    )
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    padding = torch.tensor([[True] * 5, [True, True, True, False, False]])[:, None, None, :]
    cases = (
        (randn(gen, 2, 5, D), None),
        (randn(gen, 2, 5, D), causal),
        (randn(gen, 2, 5, D), padding),
        (randn(gen, 1, 1, D), None),
    )
    for x, mask in cases:
        c = Call(label, x, params="forward", **({} if mask is None else {"mask": mask}))
        expect(run(c, obj, mutants), f(x.double(), mask), c, mutants, dtype=torch.float32)
    x, weights = randn(gen, 2, 5, D), randn(gen, 2, 5, D)
    got = flat_gradients(gradients(sub, obj, weights, x, mask=causal))
    want = float64_gradients(
        lambda x, **p: heads(p, x, x, causal, h, g_kv), weights, x, params=state
    )
    expect_gradients(got, want, f"{label} (backward)")


def check_gqa(sub) -> None:
    _check_grouped(sub, "GroupedQueryAttention", (8, 4, 2), 4, 2)
    expect_raises(
        Call("GroupedQueryAttention", 8, 4, 3),
        sub,
        N_("num_heads must be a multiple of num_kv_heads"),
    )
    expect_raises(
        Call("GroupedQueryAttention", 8, 3, 1), sub, N_("d_model must be a multiple of num_heads")
    )


def check_mqa(sub) -> None:
    _check_grouped(sub, "MultiQueryAttention", (8, 4), 4, 1)


# ---- cross-attention -----------------------------------------------------------------------------


def _padding(memory_mask):
    return None if memory_mask is None else memory_mask[:, None, None, :]


def cross_mutants(state, h):
    def f(x, memory, memory_mask=None, **k):
        return heads(state, x, memory, _padding(memory_mask), h, **k)

    return (
        (
            "cross-attention-kv-from-queries",
            lambda x, m, memory_mask=None: heads(state, x, x, _padding(memory_mask), h),
        ),
        (
            "cross-attention-queries-from-memory",
            lambda x, m, memory_mask=None: heads(
                state, m, x, None if memory_mask is None else memory_mask[:, None, :, None], h
            ),
        ),
        ("memory-mask-ignored", lambda x, m, memory_mask=None: f(x, m, None)),
        (
            "mask-polarity-inverted",
            lambda x, m, memory_mask=None: f(x, m, memory_mask, inverted=True),
        ),
        (
            "scaled-by-d-model",
            lambda x, m, memory_mask=None: f(x, m, memory_mask, scale=x.shape[-1] ** -0.5),
        ),
        (
            "memory-mask-on-queries",
            lambda x, m, memory_mask=None: heads(
                state, x, m, None if memory_mask is None else memory_mask[:, None, :, None], h
            ),
        ),
    )


def check_cross_attention(sub) -> None:
    gen = generator(43)
    D, h = 8, 2
    obj, label = construct(sub, "CrossAttention", D, h)
    state = _state(gen, D, D, bias=True)
    load_weights(obj, state, label)
    mutants = cross_mutants(state, h)
    pad = torch.tensor([[True] * 6, [True, True, True, True, False, False]])
    cases = (
        (randn(gen, 2, 3, D), randn(gen, 2, 6, D), None),
        (randn(gen, 2, 3, D), randn(gen, 2, 6, D), pad),
        (randn(gen, 1, 1, D), randn(gen, 1, 4, D), torch.tensor([[True, False, True, True]])),
    )
    for x, memory, mmask in cases:
        kw = {} if mmask is None else {"memory_mask": mmask}
        c = Call(label, x, memory, **kw)
        want = heads(state, x.double(), memory.double(), _padding(mmask), h)
        expect(run(c, obj, mutants), want, c, mutants, dtype=torch.float32)
    x, memory, weights = randn(gen, 2, 3, D), randn(gen, 2, 6, D), randn(gen, 2, 3, D)
    got = flat_gradients(gradients(sub, obj, weights, x, memory, memory_mask=pad))
    want = float64_gradients(
        lambda x, m, **p: heads(p, x, m, _padding(pad), h), weights, x, memory, params=state
    )
    expect_gradients(got, want, f"{label} (backward)")


# ---- the decoder block ---------------------------------------------------------------------------


def decoder(
    state,
    x,
    memory,
    memory_mask=None,
    h=2,
    *,
    causal=True,
    cross_on_self=False,
    post_ln=False,
    mask_used=True,
):
    def norm(t, i):
        return F.layer_norm(
            t, t.shape[-1:], state[f"norm{i}.weight"].double(), state[f"norm{i}.bias"].double()
        )

    x, memory = x.double(), memory.double()
    L = x.shape[1]
    self_mask = torch.ones(L, L, dtype=torch.bool).tril() if causal else None
    pad = _padding(memory_mask) if mask_used else None

    def sa(t):
        return heads(state, t, t, self_mask, h, prefix="self_attn.")

    def ca(t):
        kv, m = (t, None) if cross_on_self else (memory, pad)
        return heads(state, t, kv, m, h, prefix="cross_attn.")

    def ff(t):
        return _lin(torch.relu(_lin(t, state, "linear1")), state, "linear2")

    if post_ln:
        x = norm(x + sa(x), 1)
        x = norm(x + ca(x), 2)
        return norm(x + ff(x), 3)
    x = x + sa(norm(x, 1))
    x = x + ca(norm(x, 2))
    return x + ff(norm(x, 3))


def decoder_state(gen, D, d_ff):
    state = _state(gen, D, D, True, "self_attn.") | _state(gen, D, D, True, "cross_attn.")
    state |= linear_state(gen, "linear1", D, d_ff, bias=True)
    state |= linear_state(gen, "linear2", d_ff, D, bias=True)
    for i in (1, 2, 3):
        state[f"norm{i}.weight"] = 1 + randn(gen, D) * 0.3
        state[f"norm{i}.bias"] = randn(gen, D) * 0.3
    return state


def check_decoder_block(sub) -> None:
    gen = generator(47)
    D, h, d_ff = 8, 2, 12
    obj, label = construct(sub, "DecoderBlock", D, h, d_ff)
    state = decoder_state(gen, D, d_ff)
    load_weights(obj, state, label)
    f = lambda x, m, memory_mask=None, **k: decoder(state, x, m, memory_mask, h, **k)  # noqa: E731
    mutants = (
        (
            "decoder-self-attention-not-causal",
            lambda x, m, memory_mask=None: f(x, m, memory_mask, causal=False),
        ),
        (
            "cross-attention-kv-from-queries",
            lambda x, m, memory_mask=None: f(x, m, memory_mask, cross_on_self=True),
        ),
        ("pre-post-ln-swapped", lambda x, m, memory_mask=None: f(x, m, memory_mask, post_ln=True)),
        (
            "memory-mask-ignored",
            lambda x, m, memory_mask=None: f(x, m, memory_mask, mask_used=False),
        ),
    )
    pad = torch.tensor([[True] * 6, [True, True, True, False, False, False]])
    cases = (
        (randn(gen, 2, 4, D), randn(gen, 2, 6, D), None),
        (randn(gen, 2, 4, D), randn(gen, 2, 6, D), pad),
        (randn(gen, 1, 1, D), randn(gen, 1, 6, D), pad[1:]),
    )
    for x, memory, mmask in cases:
        kw = {} if mmask is None else {"memory_mask": mmask}
        c = Call(label, x, memory, **kw)
        expect(
            run(c, obj, mutants),
            f(x.double(), memory.double(), mmask),
            c,
            mutants,
            dtype=torch.float32,
        )
    x, memory, weights = randn(gen, 2, 4, D), randn(gen, 2, 6, D), randn(gen, 2, 4, D)
    got = flat_gradients(gradients(sub, obj, weights, x, memory, memory_mask=pad))
    want = float64_gradients(
        lambda x, m, **p: decoder(p, x, m, pad, h), weights, x, memory, params=state
    )
    expect_gradients(got, want, f"{label} (backward)")

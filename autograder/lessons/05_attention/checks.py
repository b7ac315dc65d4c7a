"""Lesson 05: single-head attention. ``scaled_dot_product_attention`` and ``SelfAttention``.

Lq queries, Lk keys, K d_k, V d_v; masks are bool (True = may attend) or float (additive: added
to the scores, as ``F.scaled_dot_product_attention``'s float ``attn_mask``).
"""

from __future__ import annotations

from contextlib import contextmanager

import torch

from autograder.i18n import _
from autograder.kit import (
    ATTENTION_FORBID,
    DTYPE_PROMOTED,
    Call,
    additive,
    attention_mutants,
    bias_mask,
    construct,
    diagnose,
    exercise,
    expect_attention,
    expect_layers,
    expect_meta,
    expect_tuple,
    expect_unchanged,
    fmt_dtype,
    fully_masked,
    generator,
    linear_state,
    load_weights,
    low_precision_dtypes,
    no_full_rows,
    on_meta,
    randn,
)
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import ref_attention64, self_attention
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    naming_randomness,
    wide_call,
    with_rules,
)
from autograder.kit.module_calls import expect_module_calls
from autograder.kit.mutants import causal_if_none, projections_mixed_up
from autograder.kit.repeat import expect_deterministic, paused

from .precision import check_float64_kept
from .probes import check_large_inputs, naming_after_a_crash, values_as_wide_as_queries
from .sdpa_mutants import (
    FLOAT_MASK_MUTANTS,
    SDPA_IDS,
    SDPA_MUTANTS,
    added_before_scaling,
    self_attention_extra_mutants,
    transposed,
)


@exercise("scaled_dot_product_attention", forbid=ATTENTION_FORBID)
def check_scaled_dot_product_attention(sub) -> None:
    g = generator(7)
    name = "scaled_dot_product_attention"
    cases = (  # (q, k, v shapes, mask shape or None), smallest first
        ((2, 4), (4, 4), (4, 3), None),
        ((3, 9), (5, 9), (5, 2), None),
        ((3, 4), (5, 4), (5, 5), None),  # Lk == d_v: v transposed still has the right shape
        "invariants",
        ((3, 4), (5, 4), (5, 3), (3, 5)),
        ((2, 3, 4), (2, 5, 4), (2, 5, 6), (2, 1, 5)),  # a padding mask, broadcast over queries
        ((2, 3, 4), (2, 5, 4), (2, 5, 6), (2, 3, 5)),  # one (Lq, Lk) mask per sequence
        ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), (3, 5)),  # broadcast over batch and heads
        ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), (2, 1, 1, 5)),  # padding, for heads
        ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), (2, 2, 3, 5)),  # its own mask per head
        "large",
        ((2, 3, 8), (2, 5, 8), (2, 5, 5), (3, 5)),  # d_k = 8: sqrt(d_k) is not a whole number
        ((3, 3, 4, 4), (3, 3, 5, 4), (3, 3, 5, 3), (3, 4, 5)),  # per head, broadcast over B = h
    )
    for case in cases:
        if case == "invariants":  # what a mask means, before its exact values
            check_mask_invariants(g, lambda *a: Call(name, *a), sub, SDPA_MUTANTS)
            continue
        if case == "large":  # scores in the hundreds: exp overflows unless the max is subtracted
            q, k, v = randn(g, 3, 4) * 12, randn(g, 5, 4) * 12, randn(g, 5, 3)
            c = Call(name, q, k, v)
            out = c.run(sub, mutants=SDPA_MUTANTS)
            expect_attention(out, ref_attention64(q, k, v), c, q.dtype, SDPA_MUTANTS)
            continue
        qs, ks, vs, ms = case
        q, k, v = randn(g, *qs), randn(g, *ks), randn(g, *vs)
        args = (q, k, v) if ms is None else (q, k, v, no_full_rows(g, *ms))
        c = Call(name, *args)
        with batched_names_it(sub, len(qs)):
            out = c.run(sub, mutants=SDPA_MUTANTS)
            expect_attention(out, ref_attention64(*args), c, q.dtype, SDPA_MUTANTS)
    for dtype in low_precision_dtypes():
        q, k, v = (randn(g, 2, n, d, dtype=dtype) for n, d in ((3, 8), (4, 8), (4, 5)))
        args = (q, k, v, no_full_rows(g, 3, 4))
        c = Call(name, *args)
        out = c.run(sub, mutants=SDPA_MUTANTS)
        expect_attention(out, ref_attention64(*args), c, dtype, DTYPE_PROMOTED)
    check_blocked_key_dominates(name, sub)
    check_rows_apart(name, sub)
    check_float64_kept(name, sub)
    q, k, v = randn(g, 4, 4), randn(g, 5, 4), randn(g, 5, 3)
    # all False: inverted, or added as 0s, it acts as if ignored; the masked cases above ruled
    # those two out
    same = {"mask-polarity-inverted", "bool-mask-added"}
    unblocked = tuple(m for m in SDPA_MUTANTS if m[0] not in same)
    for mask, mutants in ((fully_masked(4, 5), SDPA_MUTANTS), (torch.zeros(1, 5) > 0, unblocked)):
        args = (q, k, v, mask)
        c = Call(name, *args)
        expect_attention(c.run(sub, mutants=mutants), ref_attention64(*args), c, None, mutants)
    with on_meta():  # meta tensors have shapes but no data
        meta = [torch.empty(*s, device="meta") for s in ((2, 3, 4), (2, 5, 4), (2, 5, 6))]
        c = Call(name, *meta, torch.empty(3, 5, dtype=torch.bool, device="meta"))
        out = expect_tuple(c.run(sub), c, 2, "a tuple (output, weights)")
        expect_meta(out[0], c, (2, 3, 6), torch.float32, what="the output")
        expect_meta(out[1], c, (2, 3, 5), torch.float32, what="the weights")
    check_additive_masks(g, name, sub)  # last: bool-only mistakes are named by the cases above


def check_blocked_key_dominates(name, sub) -> None:
    """A blocked key scoring 200 above the allowed one: masked before the softmax it is simply
    gone; masked after it (softmax(s) * mask, renormalised or not), the allowed key's weight
    has underflowed to 0 in float32, and 0 / 0 is NaN."""
    q, k = torch.full((1, 4), 10.0), torch.tensor([[0.0] * 4, [10.0] * 4])
    args = (
        q,
        k,
        torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]),
        torch.tensor([[True, False]]),
    )
    c = Call(name, *args)
    try:
        out = c.run(sub, mutants=SDPA_MUTANTS)
        expect_attention(out, ref_attention64(*args), c, q.dtype, SDPA_MUTANTS)
    except CheckFailure as failure:  # every masked case before passed: the mask acts too late
        failure.mistake = failure.mistake or "mask-after-softmax"
        raise


def check_rows_apart(name, sub) -> None:
    """Two queries 1000x apart in scale: query 0's scores reach 212, query 1's stay near 0, so
    a softmax shifted by one max for the whole tensor (not each row's) underflows query 1."""
    g = generator(125)
    q = randn(g, 2, 4) * torch.tensor([[100.0], [0.1]])
    k, v = randn(g, 5, 4), randn(g, 5, 3)
    c = Call(name, q, k, v)
    try:
        out = c.run(sub, mutants=SDPA_MUTANTS)
        expect_attention(out, ref_attention64(q, k, v), c, q.dtype, SDPA_MUTANTS)
    except CheckFailure as failure:  # the large scores above passed: one max for all the rows
        failure.mistake = failure.mistake or "softmax-global-max"
        raise


@contextmanager
def batched_names_it(sub, ndim):
    """A mistake that shows on 2-D inputs only as an error (softmax(dim=2), q.shape[2],
    transpose(1, 2) all raise "out of range") is named by a (B, h, L, d) call, where each gives
    its own wrong values: that call's named failure is raised instead."""
    try:
        yield
    except CheckFailure as failure:
        if ndim != 2 or failure.mistake not in (None, "transpose-batch-dims"):
            raise
        g = generator(122)
        q, k, v = randn(g, 2, 2, 3, 4), randn(g, 2, 2, 5, 4), randn(g, 2, 2, 5, 3)
        c = Call("scaled_dot_product_attention", q, k, v)
        try:
            with paused():
                out = c.run(sub, mutants=SDPA_MUTANTS)
            expect_attention(out, ref_attention64(q, k, v), c, q.dtype, SDPA_MUTANTS)
        except CheckFailure as batched:
            if batched.mistake is not None:
                raise batched from None
        raise


def check_additive_masks(g, name, sub) -> None:
    """Float masks are added to the scores; all -inf rows give zeros; float16 stays float16."""
    cases = (  # (q, k, v shapes, float mask)
        ((3, 4), (5, 4), (5, 3), bias_mask(g, 3, 5)),  # a bias: neither bool nor 0 / -inf
        ((2, 4, 4), (2, 5, 4), (2, 5, 3), additive(fully_masked(4, 5))),  # query 1: all -inf
        ((2, 3, 4), (2, 5, 4), (2, 5, 6), additive(no_full_rows(g, 2, 1, 5))),  # padding
    )
    for qs, ks, vs, mask in cases:
        args = (randn(g, *qs), randn(g, *ks), randn(g, *vs), mask)
        c = Call(name, *args)
        out = c.run(sub, mutants=SDPA_MUTANTS)
        probe = lambda m, a=args[:3]: (Call(name, *a, m), sub, SDPA_MUTANTS)  # noqa: E731
        with ignored_or_finite(probe, mask):
            expect_attention(out, ref_attention64(*args), c, args[0].dtype, SDPA_MUTANTS)
    for dtype in low_precision_dtypes():  # a float32 mask with half inputs, as SDPA allows
        q, k, v = (randn(g, 2, n, d, dtype=dtype) for n, d in ((3, 8), (4, 8), (4, 5)))
        args = (q, k, v, additive(no_full_rows(g, 3, 4), bias_mask(g, 3, 4)))
        c = Call(name, *args)
        out = c.run(sub, mutants=FLOAT_MASK_MUTANTS)
        expect_attention(out, ref_attention64(*args), c, dtype, FLOAT_MASK_MUTANTS)
    for dtype in (*low_precision_dtypes(), torch.float64):  # a mask in the inputs' own dtype
        q, k, v = (randn(g, 2, n, d, dtype=dtype) for n, d in ((3, 8), (4, 8), (4, 5)))
        args = (q, k, v, additive(no_full_rows(g, 3, 4), bias_mask(g, 3, 4)).to(dtype))
        c = Call(name, *args)
        try:
            out = c.run(sub, mutants=FLOAT_MASK_MUTANTS)
            expect_attention(out, ref_attention64(*args), c, dtype, FLOAT_MASK_MUTANTS)
        except CheckFailure as failure:  # float32 masks were added: this dtype was not
            failure.mistake = failure.mistake or "additive-mask-as-bool"
            raise


@contextmanager
def ignored_or_finite(probe, bias):
    """A float mask of biases alone (no -inf) cannot tell a mask ignored from one turned into a
    bool mask by mask.isfinite(), True everywhere on it: a failure named [mask-ignored] there is
    decided by the same call with -inf entries added to the biases. ``probe(mask)`` gives the
    ``(Call, target, mutants)`` of that call."""
    try:
        yield
    except CheckFailure as failure:
        if failure.mistake == "mask-ignored" and bias.dtype != torch.bool:
            blocked = torch.ones(bias.shape, dtype=torch.bool).tril(diagonal=bias.shape[-1] // 2)
            c, target, mutants = probe(additive(blocked, bias))
            try:
                named = diagnose(c.run(target), c, mutants)
            except CheckFailure:
                named = None
            if named == "additive-mask-as-bool":
                failure.mistake = named
        raise


def check_mask_invariants(g, make_call, target, mutants) -> None:
    """Keys a mask hides must not matter: padded keys for every query, future keys under a causal
    mask. ``make_call(q, k, v, mask)`` builds the Call run on ``target``."""
    q, k, v = randn(g, 3, 4), randn(g, 5, 4), randn(g, 5, 3)
    padding = torch.tensor([[True, True, True, False, False]])  # (1, Lk): keys 3-4 are padding
    c = make_call(q, k, v, padding)
    out = c.run(target, mutants=mutants)
    k2, v2 = k.clone(), v.clone()
    k2[3:], v2[3:] = randn(g, 2, 4) * 3, randn(g, 2, 3) * 3
    other = make_call(q, k2, v2, padding).run(target, mutants=mutants)
    why = _("changing keys and values 3-4, which the padding mask hides from every query,")
    expect_unchanged(c, out, other, (...,), why, mutants=mutants)
    q, k, v = randn(g, 4, 4), randn(g, 4, 4), randn(g, 4, 3)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    c = make_call(q, k, v, causal)
    out = c.run(target, mutants=mutants)
    k2, v2 = k.clone(), v.clone()
    k2[3], v2[3] = randn(g, 4) * 3, randn(g, 3) * 3
    other = make_call(q, k2, v2, causal).run(target, mutants=mutants)
    why = _("changing the last key and value, which a causal mask hides from queries 0-2,")
    expect_unchanged(c, out, other, (slice(0, 3),), why, mutants=mutants, what="their output")


# ---- SelfAttention -----------------------------------------------------------------------------


SELF_IDS = SDPA_IDS - {"multiplied-by-sqrt-dk", "masked-to-zero", "weights-before-masking"} | {
    "scaled-by-d-model"
}


def self_attention_mutants(state):
    run = lambda x, mask=None, knobs=None: self_attention(state, x, mask, knobs)  # noqa: E731
    return (
        *attention_mutants(run, SELF_IDS),
        ("scaled-by-d-model", lambda x, mask=None: run(x, mask, {"d_model_scale": True})),
        ("scale-uses-seq-len", lambda x, mask=None: run(x, mask, {"scale": x.shape[-2] ** -0.5})),
        *(
            ("qkv-order-swapped", lambda x, mask=None, st=st: self_attention(st, x, mask))
            for st in projections_mixed_up(state)
        ),
        ("output-weights-swapped", lambda x, mask=None: self_attention(state, x, mask)[::-1]),
        (
            "mask-default-causal",
            lambda x, mask=None: self_attention(state, x, causal_if_none(x, mask)),
        ),
        ("mask-transposed", lambda x, mask=None: self_attention(state, x, transposed(mask))),
        (
            "mask-added-before-scaling",
            lambda x, mask=None: self_attention(
                state, x, None, {"scores": added_before_scaling(mask)}
            ),
        ),
        *self_attention_extra_mutants(state),
    )


@exercise("SelfAttention", forbid=ATTENTION_FORBID)
def check_self_attention(sub) -> None:
    g = generator(8)
    d_model, d_k, d_v = 6, 4, 5
    obj, label = construct(sub, "SelfAttention", d_model, d_k, d_v)
    layers = {
        f"w_{n}": {"type": "Linear", "in_features": d_model, "out_features": d, "bias": False}
        for n, d in zip("qkv", (d_k, d_k, d_v), strict=True)
    }
    known = {
        ("w_v", "out_features", d_k): "value-projection-width-d-k",
        ("w_k", "out_features", d_v): "key-projection-width-d-v",
    }
    expect_layers(obj, label, layers, bias_mistake="projection-has-bias", known=known)
    state = {}
    for n, d in zip("qkv", (d_k, d_k, d_v), strict=True):
        state |= linear_state(g, f"w_{n}", d_model, d, bias=False)
    load_weights(obj, state, label, bias_mistake="projection-has-bias")
    mutants = self_attention_mutants(state)
    c = Call(label, randn(generator(121), 2, 3, d_model), params="forward")
    expect_deterministic(obj, c, "SelfAttention", mutants)
    obj.eval()
    cases = (
        (randn(g, 2, 3, d_model), None),
        (randn(g, 2, 4, d_model), no_full_rows(g, 4, 4)),
        (randn(g, 2, 4, d_model), torch.ones(4, 4, dtype=torch.bool).tril()),
        (randn(g, 1, 4, d_model), fully_masked(4, 4)),
        (randn(g, 2, 3, d_model), bias_mask(g, 3, 3)),  # float masks: a bias first, then 0/-inf
        (randn(g, 2, 4, d_model), additive(torch.ones(4, 4, dtype=torch.bool).tril())),
    )
    for x, mask in cases:
        c = Call(label, x, params="forward", **({} if mask is None else {"mask": mask}))
        out = c.run(obj, mutants=mutants)
        if mask is None:
            expect_attention(out, self_attention(state, x, mask), c, x.dtype, mutants)
            continue
        probe = lambda m, x=x: (Call(label, x, mask=m, params="forward"), obj, mutants)  # noqa: E731
        with ignored_or_finite(probe, mask):
            expect_attention(out, self_attention(state, x, mask), c, x.dtype, mutants)
    # any leading dims: none, or two (a branch for 2-D x beside transpose(1, 2) passed)
    for x in (randn(generator(123), 3, d_model), randn(generator(127), 2, 2, 3, d_model)):
        c = Call(label, x, params="forward")
        try:
            out = c.run(obj, mutants=mutants)
            if x.dim() == 4:  # 2-D: a crash only; its wrong values are named by the mutants
                expect_attention(out, self_attention(state, x), c, x.dtype, mutants)
        except CheckFailure as failure:
            failure.mistake = failure.mistake or "fixed-input-rank"
            raise
        expect_attention(out, self_attention(state, x), c, x.dtype, mutants)
    check_large_inputs(obj, label, state, mutants)
    # d_k == d_v: v taken from w_k would have the right width, only its values differ
    same, same_label, same_state = values_as_wide_as_queries(sub, g, d_model, d_k)
    x = randn(g, 2, 3, d_model)
    c = Call(same_label, x, params="forward")
    same_mutants = self_attention_mutants(same_state)
    out = c.run(same, mutants=same_mutants)
    expect_attention(out, self_attention(same_state, x), c, x.dtype, same_mutants)
    for dtype in low_precision_dtypes():
        obj.to(dtype)
        x, mask = randn(g, 2, 3, d_model, dtype=dtype), no_full_rows(g, 3, 3)
        c = Call(f"{label}.to({fmt_dtype(dtype)})", x, mask=mask, params="forward")
        low = {k: w.to(dtype) for k, w in state.items()}
        expect_attention(c.run(obj, mutants=mutants), self_attention(low, x, mask), c, dtype, ())
    with on_meta():  # meta tensors have shapes but no data
        obj.to(torch.float32)
        obj.to("meta")
        x = torch.empty(2, 3, d_model, device="meta")
        mask = torch.empty(3, 3, dtype=torch.bool, device="meta")
        c = Call(label + ".to('meta')", x, mask=mask, params="forward")
        out = expect_tuple(c.run(obj), c, 2, "a tuple (output, weights)")
        expect_meta(out[0], c, (2, 3, d_v), torch.float32, what="the output")
        expect_meta(out[1], c, (2, 3, 3), torch.float32, what="the weights")


def _rules_sdpa(sub) -> None:
    g = generator(108)
    q, k, v = randn(g, 1, 1, 1, 4), randn(g, 1, 1, 1, 4), randn(g, 1, 1, 1, 3)
    c = Call("scaled_dot_product_attention", q, k, v)
    expect_contract_rules(sub, c, ((1, 1, 1, 3), (1, 1, 1, 1)))
    expect_true_gradients(sub, wide_call(c.name, g, (1, 3, 4), (1, 3, 4), (1, 3, 2)))
    # and under a mask: a masked_fill_ on the weights or a .detach() only where a mask is given
    causal = torch.ones(3, 3, dtype=torch.bool).tril()
    expect_true_gradients(sub, wide_call(c.name, g, (1, 3, 4), (1, 3, 4), (1, 3, 2), mask=causal))


def _rules_self_attention(sub) -> None:
    obj, label = construct(sub, "SelfAttention", 4, 3, 2)
    c = Call(label, randn(generator(109), 1, 1, 4), params="forward")
    expect_contract_rules(obj, c, ((1, 1, 2), (1, 1, 1)))
    expect_true_gradients(obj, wide_call(label, 122, (1, 3, 4), params=c))
    causal = torch.ones(3, 3, dtype=torch.bool).tril()  # gradients flow under a mask too
    expect_true_gradients(obj, wide_call(label, 126, (1, 3, 4), params=c, mask=causal))
    expect_module_calls(sub, "SelfAttention", (4, 3, 2), (2, 4, 4), masked=True)


def _twice_sdpa(sub):
    g = generator(119)
    return sub, Call("scaled_dot_product_attention", *(randn(g, 2, 3, 4) for _i in range(3)))


def _twice_self_attention(sub):
    obj, label = construct(sub, "SelfAttention", 4, 3, 2)
    obj.eval()
    return obj, Call(label + ".eval()", randn(generator(120), 2, 3, 4), params="forward")


check_scaled_dot_product_attention = with_rules(
    naming_randomness(naming_after_a_crash(check_scaled_dot_product_attention), _twice_sdpa),
    _rules_sdpa,
)
check_self_attention = with_rules(
    naming_randomness(naming_after_a_crash(check_self_attention), _twice_self_attention),
    _rules_self_attention,
)

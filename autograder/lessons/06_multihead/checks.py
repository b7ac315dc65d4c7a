"""Lesson 06: multi-head attention. ``split_heads``, ``merge_heads``, ``MultiHeadAttention``,
``mha_num_parameters``.

B batch, H heads, L positions, E head dim, D = H·E model dim.
"""

from __future__ import annotations

import torch

from autograder.i18n import _, noun
from autograder.kit import (
    DTYPE_PROMOTED,
    MHA_FORBID,
    Call,
    additive,
    bias_mask,
    construct,
    exercise,
    expect_attention,
    expect_close,
    expect_layers,
    expect_meta,
    expect_tuple,
    fail,
    fmt_dtype,
    fmt_returned,
    fmt_type,
    fully_masked,
    generator,
    linear_state,
    load_weights,
    low_precision_dtypes,
    merge,
    mha,
    no_full_rows,
    on_meta,
    randn,
    split,
)
from autograder.kit.expected import num_parameters
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    naming_randomness,
    wide_call,
    with_rules,
)
from autograder.kit.module_calls import expect_module_calls
from autograder.kit.positional import expect_forward_by_position, expect_same_by_position

from .mha_mutants import HOW, mha_mutants

# ---- split_heads / merge_heads ------------------------------------------------------------------


SPLIT_MUTANTS = (
    *((m, lambda x, h, how=how: split(x, h, how)) for m, how in HOW.items()),
    # (B, L, H, E): the heads split off but never moved before the positions
    ("split-heads-no-transpose", lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h)),
    # (B, L, H, E).transpose(2, 3): (B, L, E, H), the heads and their features swapped
    (
        "split-heads-no-transpose",
        lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h).transpose(2, 3),
    ),
    ("split-by-head-dim", lambda x, h: split(x, x.shape[-1] // h)),  # num_heads used as d_head
    # (B, L, H, E).transpose(1, 3) is (B, E, H, L): reshaped to (B, H, L, E), positions mixed in
    ("split-heads-no-transpose", lambda x, h: _split_transposed_1_3(x, h)),
    # (B, L, D).transpose(1, 2) is (B, D, L): reshaped to (B, H, L, E), features and positions mixed
    (
        "split-heads-no-transpose",
        lambda x, h: x.transpose(1, 2).reshape(x.shape[0], h, x.shape[1], x.shape[2] // h),
    ),
    ("split-heads-dims-mislabelled", lambda x, h: _split_mislabelled(x, h)),
    # d_head read from L: x.view(B, L, h, x.shape[1] // h)
    (
        "split-heads-dims-mislabelled",
        lambda x, h: x.reshape(*x.shape[:2], h, x.shape[1] // h).transpose(1, 2),
    ),
)


def _split_mislabelled(x, h):
    """B, D, L = x.shape on a (B, L, D) tensor: viewed as (B, D, h, L // h), an error unless
    h == 1 or L == D."""
    b, d, n = x.shape
    return x.reshape(b, n, h, d // h).transpose(1, 2)


def _split_transposed_1_3(x, h):
    b, n, d = x.shape
    return x.reshape(b, n, h, d // h).transpose(1, 3).reshape(b, h, n, d // h)


def _heads_summed(x, reduce, tiled):
    """The heads summed (or averaged) instead of set side by side: (B, L, E), or tiled back to
    (B, L, H·E) with repeat."""
    out = reduce(x, 1)
    return out.repeat(1, 1, x.shape[1]) if tiled else out


MERGE_MUTANTS = (
    ("merge-heads-no-transpose", lambda x: merge(x, "no-transpose")),
    ("wrong-head-order", lambda x: merge(x, "wrong-order")),
    ("heads-reversed", lambda x: merge(x, "reversed")),
    # B, L, h, dh = x.shape on a (B, H, L, E) tensor: reshaped to (B, H, L * E)
    ("merge-heads-dims-mislabelled", lambda x: x.transpose(1, 2).reshape(*x.shape[:2], -1)),
    ("merge-heads-dims-mislabelled", lambda x: x.reshape(*x.shape[:2], -1)),  # nor transposed
    *(
        ("heads-summed", lambda x, r=r, t=t: _heads_summed(x, r, t))
        for r in (torch.sum, torch.mean)
        for t in (True, False)
    ),
)


@exercise("split_heads")
def check_split_heads(sub) -> None:
    g = generator(9)
    for shape, h in (((2, 3, 8), 2), ((1, 4, 6), 3), ((2, 5, 4), 4), ((3, 2, 6), 1)):
        x = randn(g, *shape)
        c = Call("split_heads", x, h)
        out = c.run(sub, mutants=SPLIT_MUTANTS)
        expect_close(out, split(x.double(), h), c, dtype=x.dtype, mutants=SPLIT_MUTANTS)
    for dtype in low_precision_dtypes():
        x = randn(g, 2, 3, 8, dtype=dtype)
        c = Call("split_heads", x, 4)
        expect_close(c.run(sub), split(x.double(), 4), c, dtype=dtype)
    with on_meta():  # meta tensors have shapes but no data
        c = Call("split_heads", torch.empty(2, 5, 12, device="meta"), 3)
        expect_meta(c.run(sub), c, (2, 3, 5, 4), torch.float32)


@exercise("merge_heads")
def check_merge_heads(sub) -> None:
    g = generator(10)
    for shape in ((2, 2, 3, 4), (1, 3, 4, 2), (2, 4, 5, 1)):
        x = randn(g, *shape)
        c = Call("merge_heads", x)
        out = c.run(sub, mutants=MERGE_MUTANTS)
        expect_close(out, merge(x.double()), c, dtype=x.dtype, mutants=MERGE_MUTANTS)
    for dtype in low_precision_dtypes():
        x = randn(g, 2, 2, 3, 4, dtype=dtype)
        c = Call("merge_heads", x)
        expect_close(c.run(sub), merge(x.double()), c, dtype=dtype)
    with on_meta():  # meta tensors have shapes but no data
        c = Call("merge_heads", torch.empty(2, 3, 5, 4, device="meta"))
        expect_meta(c.run(sub), c, (2, 5, 12), torch.float32)


# ---- MultiHeadAttention ------------------------------------------------------------------------


@exercise("MultiHeadAttention", forbid=MHA_FORBID)
def check_multi_head_attention(sub) -> None:
    g = generator(11)
    d = 8
    cases = (  # (num_heads, bias, query shape, key/value length or None, mask)
        (2, False, (2, 3, d), None, None),
        (2, True, (2, 4, d), None, torch.ones(4, 4, dtype=torch.bool).tril()),
        (4, False, (2, 3, d), 5, no_full_rows(g, 2, 1, 1, 5)),  # cross-attention, padding mask
        (2, False, (2, 3, d), "key", None),  # key given, value omitted: value defaults to key
        (2, True, (1, 4, d), None, fully_masked(4, 4)),
        # Masks of every shape that broadcasts to the weights (B, h, Lq, Lk), passed on as given:
        (4, False, (2, 4, d), None, no_full_rows(g, 1, 4, 4)),  # 3-D, one for every sequence
        (2, True, (2, 4, d), None, no_full_rows(g, 2, 1, 4, 4)),  # (B, 1, Lq, Lk): per sequence
        (2, False, (3, 3, d), None, no_full_rows(g, 2, 3, 3)),  # (h, Lq, Lk): one per head
        (1, True, (2, 3, d), None, None),  # one head: still projected by w_o
        (1, True, (2, 3, d), None, no_full_rows(g, 2, 1, 1, 3)),  # one head, (B, 1, 1, Lk)
        # (Lq, Lk) with B == Lq: not a (B, Lk) padding mask to be made (B, 1, 1, Lk)
        (2, True, (4, 4, d), None, torch.ones(4, 4, dtype=torch.bool).tril()),
    )
    built = {}
    for h, bias, qs, lk, mask in cases:
        if (h, bias) not in built:
            kwargs = {"bias": True} if bias else {}
            obj, label = construct(sub, "MultiHeadAttention", d, h, **kwargs)
            layers = {
                f"w_{n}": {"type": "Linear", "in_features": d, "out_features": d, "bias": bias}
                for n in "qkvo"
            }
            known = {(f"w_{n}", "bias", False): "bias-not-passed" for n in "qkvo"}
            expect_layers(obj, label, layers, bias_mistake="projection-has-bias", known=known)
            state = {}
            for n in "qkvo":
                state |= linear_state(g, f"w_{n}", d, d, bias=bias)
            load_weights(obj, state, label, bias_mistake="projection-has-bias")
            obj.eval()
            built[h, bias] = obj, label, state
        obj, label, state = built[h, bias]
        mutants = mha_mutants(state, h)
        query = randn(g, *qs)
        if lk is None:
            kv = {}
        elif lk == "key":
            kv = {"key": randn(g, *qs)}
        else:
            kv = {"key": randn(g, qs[0], lk, d), "value": randn(g, qs[0], lk, d)}
        kwargs = kv | ({} if mask is None else {"mask": mask})
        c = Call(label, query, params="mha.forward", **kwargs)
        out = c.run(obj, mutants=mutants)  # COURSE_SPEC: value defaults to key
        want = mha(state, h, query, kv.get("key"), kv.get("value"), mask)
        expect_attention(out, want, c, torch.float32, mutants)
    obj, label, state = built[2, True]
    query, causal = randn(generator(124), 3, 4, d), torch.ones(4, 4, dtype=torch.bool).tril()
    c = Call(label, query, mask=causal, params="mha.forward")  # B != h: B stays off the heads
    mutants = mha_mutants(state, 2)
    out, want = c.run(obj, mutants=mutants), mha(state, 2, query, mask=causal)
    expect_attention(out, want, c, torch.float32, mutants)
    _check_permutation_equivariance(obj, label, g, d)
    query = randn(g, 2, 3, d) * 30  # scores in the thousands: exp overflows without the max
    c = Call(label, query, params="mha.forward")
    mutants = mha_mutants(state, 2)
    expect_attention(c.run(obj, mutants=mutants), mha(state, 2, query), c, torch.float32, mutants)
    # A float mask, added to the scores (COURSE_SPEC): -inf blocks, a finite bias shifts
    query, mask = randn(g, 2, 4, d), additive(no_full_rows(g, 4, 4), bias_mask(g, 4, 4))
    c = Call(label, query, mask=mask, params="mha.forward")
    out = c.run(obj, mutants=mutants)
    expect_attention(out, mha(state, 2, query, mask=mask), c, torch.float32, mutants)
    for dtype in low_precision_dtypes():
        obj.to(dtype)
        low = {k: w.to(dtype) for k, w in state.items()}
        allowed = no_full_rows(g, 3, 3)  # then a float mask of the inputs' dtype, added
        for mask in (allowed, additive(allowed, bias_mask(g, 3, 3)).to(dtype)):
            query = randn(g, 2, 3, d, dtype=dtype)
            c = Call(f"{label}.to({fmt_dtype(dtype)})", query, mask=mask, params="mha.forward")
            out = c.run(obj, mutants=mha_mutants(state, 2))
            named = DTYPE_PROMOTED + mha_mutants(low, 2)
            expect_attention(out, mha(low, 2, query, mask=mask), c, dtype, named)
    with on_meta():  # meta tensors have shapes but no data
        obj.to(torch.float32)
        obj.to("meta")
        query = torch.empty(2, 3, d, device="meta")
        kv = torch.empty(2, 5, d, device="meta")
        mask = torch.empty(3, 5, dtype=torch.bool, device="meta")
        c = Call(label + ".to('meta')", query, key=kv, value=kv, mask=mask, params="mha.forward")
        out = expect_tuple(c.run(obj), c, 2, "a tuple (output, weights)")
        expect_meta(out[0], c, (2, 3, d), torch.float32, what="the output")
        expect_meta(out[1], c, (2, 2, 3, 5), torch.float32, what="the weights")
    c = Call("MultiHeadAttention", 6, 4)
    c.expect_error(
        sub, "ValueError", _("d_model=6 is not a multiple of num_heads=4"), "no-value-error"
    )


def _check_permutation_equivariance(obj, label, g, d) -> None:
    """Without positions or a mask, attention is order-blind: permuting the tokens permutes the
    output (and both axes of the weights) the same way."""
    x, perm = randn(g, 2, 4, d), torch.tensor([2, 0, 3, 1])
    c = Call(label, x, params="mha.forward")
    out = expect_tuple(c.run(obj), c, 2, "a tuple (output, weights)")
    c2 = Call(label, x[:, perm], params="mha.forward")
    other = expect_tuple(c2.run(obj), c2, 2, "a tuple (output, weights)")
    want = (out[0][:, perm], out[1][:, :, perm][..., perm])
    for what, a, b in zip(("the output", "the weights"), other, want, strict=True):
        if a.shape == b.shape and not torch.allclose(a, b, atol=1e-5, rtol=1e-4):
            raise fail(
                _(
                    "{call}: permuting the input tokens by {perm} must permute {what} the same "
                    "way (without positions or a mask attention ignores token order), but the "
                    "result is not that permutation."
                ).format(call=c2, perm=perm.tolist(), what=noun(what))
            )


# ---- mha_num_parameters ------------------------------------------------------------------------


PARAM_MUTANTS = (
    (
        "params-forgot-output-projection",
        lambda d, h, bias=False: num_parameters(d, h, bias, projections=3),
    ),
    ("params-forgot-biases", lambda d, h, bias=False: num_parameters(d, h, bias, with_bias=False)),
    ("params-times-heads", lambda d, h, bias=False: num_parameters(d, h, bias, per_head=True)),
    ("params-bias-ignored", lambda d, h, bias=False: num_parameters(d, h, True)),
    ("params-one-head", lambda d, h, bias=False: num_parameters(d, h, bias) // h),
    ("params-forgot-biases", lambda d, h, bias=False: num_parameters(d, h) + 4 * bias),
    ("params-forgot-biases", lambda d, h, bias=False: num_parameters(d, h) + 3 * d * bias),
    ("params-forgot-biases", lambda d, h, bias=False: num_parameters(d, h) + 4 * (d // h) * bias),
    (
        "params-bias-times-heads",
        lambda d, h, bias=False: num_parameters(d, h, False) + 4 * d * h * bias,
    ),
    (
        "params-times-heads",
        lambda d, h, bias=False: (
            num_parameters(d, h, bias, per_head=True, with_bias=False) + 4 * d * bias
        ),
    ),
    # each head its own d_model x d_model q, k and v projections, one output projection
    (
        "params-times-heads",
        lambda d, h, bias=False: h * (3 * d * d + 3 * d * bias) + d * d + d * bias,
    ),
    # counted in floats and cut by int(): int(4 * 34**2 * (1 + 1 / 34)) is one short
    ("params-not-int", lambda d, h, bias=False: num_parameters(d, h, bias) - 1),
)


PARAM_ERRORS = (  # MultiHeadAttention(d_model, bias): bias lands in num_heads, 0 when False
    (
        "params-bias-as-num-heads",
        lambda d, h, bias=False: d % int(bias) or num_parameters(d, 1, bias),
    ),
)


@exercise("mha_num_parameters", forbid=("torch.nn.MultiheadAttention",))  # count, not build
def check_mha_num_parameters(sub) -> None:
    for d, h, bias in ((8, 2, None), (8, 2, True), (12, 3, False), (34, 2, True), (512, 8, True)):
        c = (
            Call("mha_num_parameters", d, h)
            if bias is None
            else Call("mha_num_parameters", d, h, bias=bias)
        )
        value = c.run(sub, mutants=PARAM_ERRORS)
        want = num_parameters(d, h, bool(bias))
        if isinstance(value, torch.Tensor):
            raise fail(
                _("{call} returned {type}; expected the int {want}.").format(
                    call=c, type=fmt_type(value), want=want
                ),
                "returns-tensor-not-number",
            )
        if isinstance(value, float) and value == want:
            raise fail(
                _("{call} returned the float {value}; expected the int {want}.").format(
                    call=c, value=repr(value), want=want
                ),
                "params-not-int",
            )
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail(
                _("{call} returned {type} ({value}); expected the int {want}.").format(
                    call=c, type=fmt_type(value), value=fmt_returned(value), want=want
                )
            )
        if value != want:
            mistake = next((m for m, fn in PARAM_MUTANTS if fn(d, h, bool(bias)) == value), None)
            raise fail(
                _("{call} returned {value}; expected {want}.").format(
                    call=c, value=value, want=want
                ),
                mistake,
            )
    expect_same_by_position(sub, "mha_num_parameters", (8, 2), {"bias": True})


def _rules_split_heads(sub) -> None:
    c = Call("split_heads", randn(generator(110), 1, 1, 4), 1)
    expect_contract_rules(sub, c, (1, 1, 1, 4), output=None)


def _rules_merge_heads(sub) -> None:
    c = Call("merge_heads", randn(generator(111), 1, 1, 1, 4))
    expect_contract_rules(sub, c, (1, 1, 4), output=None)


def _rules_mha(sub) -> None:
    obj, label = construct(sub, "MultiHeadAttention", 4, 1, bias=True)
    c = Call(label, randn(generator(112), 1, 1, 4), params="mha.forward")
    expect_contract_rules(obj, c, ((1, 1, 4), (1, 1, 1, 1)))
    g = generator(127)
    kv, mask = randn(g, 2, 3, 4), no_full_rows(g, 2, 1, 2, 3)
    obj.eval()
    kwargs = {"key": kv, "value": randn(g, 2, 3, 4), "mask": mask}
    expect_forward_by_position(obj, label, "MultiHeadAttention", (randn(g, 2, 2, 4),), kwargs)
    obj.train()
    expect_true_gradients(obj, wide_call(label, 123, (1, 3, 4), (1, 2, 4), (1, 2, 4), params=c))
    causal = torch.ones(3, 3, dtype=torch.bool).tril()  # gradients flow under a mask too
    expect_true_gradients(obj, wide_call(label, 128, (1, 3, 4), params=c, mask=causal))
    expect_module_calls(
        sub, "MultiHeadAttention", (4, 2), (2, 4, 4), masked=True, params="mha.forward"
    )
    x = randn(generator(117), 2, 3, 4)
    expect_same_by_position(sub, "MultiHeadAttention", (4, 2), {"bias": True}, x)


check_split_heads = with_rules(check_split_heads, _rules_split_heads)
check_merge_heads = with_rules(check_merge_heads, _rules_merge_heads)


def _twice_mha(sub):
    obj, label = construct(sub, "MultiHeadAttention", 4, 2)
    obj.eval()
    return obj, Call(label + ".eval()", randn(generator(121), 2, 3, 4), params="mha.forward")


check_multi_head_attention = with_rules(
    naming_randomness(check_multi_head_attention, _twice_mha), _rules_mha
)

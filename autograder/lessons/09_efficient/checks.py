"""Lesson 09: efficient attention. ``sliding_window_mask``, ``tiled_attention``, ``KVCache``.

Lq queries, Lk keys, K d_k, V d_v, T block size.
"""

from __future__ import annotations

import torch

from autograder.i18n import N_, _
from autograder.kit import (
    ATTENTION_FORBID,
    Call,
    LearnerError,
    attend,
    construct,
    exercise,
    expect_close,
    expect_mask,
    expect_meta,
    expect_tensor,
    expect_tuple,
    fail,
    fmt_dtype,
    fmt_num,
    fmt_shape,
    generator,
    low_precision_dtypes,
    method,
    on_meta,
    randn,
    sentences,
)
from autograder.kit.calling import learner_failed
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import tiled_reference, tiled_reference_of, window_mask
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_kept_dims,
    expect_true_gradients,
    wide_call,
    with_rules,
)
from autograder.kit.online import (
    TILED_MUTANTS,
    expect_block_maxima,
    expect_large_scores,
    not_rescaled,
)
from autograder.kit.precision import cancelling_inputs, expect_output_float64_kept
from autograder.kit.repeat import paused, watched

from .blocks import first_block_only, right, runs_right, whole_blocks_only
from .cache import cache_mutants, holding, keeps, same_tensor
from .memory import check_process_memory, check_row_memory, check_row_trace
from .window import WINDOW_CASES, WINDOW_MUTANTS, long_appends, truncated

# ---- sliding_window_mask ------------------------------------------------------------------------


@exercise("sliding_window_mask")
def check_sliding_window_mask(sub) -> None:
    for n, window in WINDOW_CASES:
        c = Call("sliding_window_mask", n, window)
        out = None
        try:
            out = c.run(sub, mutants=WINDOW_MUTANTS)
            expect_mask(out, window_mask(n, window), c, mutants=WINDOW_MUTANTS)
        except CheckFailure as failure:  # a window longer than the sequence fails, n keys do not
            if failure.mistake is None and window > n and _window_right(sub, n, n):
                failure.mistake = "window-clamped-to-length"
            if out is None and window == 0:  # raised: "a window must be at least 1" (trial 38)
                failure.message += "\n" + _(sentences.WINDOW_ZERO).format(n=n)
            raise


def _window_right(sub, n, window) -> bool:
    c = Call("sliding_window_mask", n, window)
    try:
        expect_mask(c.run(sub), window_mask(n, window), c)
    except CheckFailure:
        return False
    return True


# ---- tiled_attention ---------------------------------------------------------------------------


@exercise("tiled_attention", forbid=ATTENTION_FORBID, time_limit=30.0, measures_memory=True)
def check_tiled_attention(sub) -> None:
    g = generator(17)
    name = "tiled_attention"
    cases = (  # (q, k, v shapes, kwargs), smallest first
        ((3, 4), (5, 4), (5, 3), {"block_size": 2}),
        ((2, 2, 6, 4), (2, 2, 6, 4), (2, 2, 6, 4), {"block_size": 4}),
        ((4, 4), (4, 4), (4, 2), {"block_size": 8}),  # one block
        ((7, 4), (7, 4), (7, 3), {"block_size": 3, "causal": True}),
        ((2, 9, 8), (2, 9, 8), (2, 9, 8), {"block_size": 4, "causal": True}),
        ((1, 70, 8), (1, 100, 8), (1, 100, 4), {}),  # the default block size
        ((5, 4), (9, 4), (9, 3), {"block_size": 3, "causal": True}),  # top-left: i sees 0..i
        ((2, 9, 4), (2, 6, 4), (2, 6, 3), {"block_size": 4, "causal": True}),
    )
    for qs, ks, vs, kwargs in cases:
        q, k, v = randn(g, *qs) * 2, randn(g, *ks) * 2, randn(g, *vs)
        c = Call(name, q, k, v, **kwargs)
        out = None
        try:
            out = c.run(sub, mutants=TILED_MUTANTS)
            expect_close(out, tiled_reference_of(c), c, dtype=q.dtype, mutants=TILED_MUTANTS)
        except CheckFailure as failure:  # saying which running quantity was not rescaled
            if failure.mistake is None and _width_of_q(out, qs, vs) and _right_with_v_as_q(sub, c):
                failure.mistake = "tiled-output-width-d-k"
            if failure.mistake is None and out is None and first_block_only(sub, c):
                failure.mistake = "tiled-keys-first-block-only"
            if failure.mistake is None and out is None and whole_blocks_only(sub, c):
                failure.mistake = "partial-block-dropped"
            if failure.mistake is None and isinstance(out, (tuple, list)) and out:
                failure.mistake = "tiled-returns-tuple" if right(out[0], c) else None
            raise fail(failure.message + not_rescaled(out, c, failure), failure.mistake) from None
    expect_large_scores(sub, g)
    expect_block_maxima(sub, g)  # a max kept from the first block, or taken before the mask
    for dtype in low_precision_dtypes():
        q, k, v = (randn(g, 2, 6, 8, dtype=dtype) for _i in range(3))
        c = Call(name, q, k, v, block_size=4, causal=True)
        expect_close(c.run(sub), tiled_reference(q, k, v, 4, True), c, dtype=dtype)
        _check_float32_accumulation(sub, dtype)
    for causal in (False, True):  # on inputs from a seed the learner's code cannot know
        check_process_memory(sub, generator(), causal)
    check_row_memory(sub, generator())
    with on_meta():  # meta tensors have shapes but no data
        meta = [torch.empty(2, 6, 4, device="meta") for _i in range(3)]
        for kwargs in ({"block_size": 4}, {"block_size": 4, "causal": True}):
            c = Call(name, *meta, **kwargs)
            expect_meta(c.run(sub), c, (2, 6, 4), torch.float32)
    n = 384  # Lq·Lk = 147456 elements, q/k/v 3072 each; a (384, 32) score tile 12288
    for causal_, block in ((False, 32), (True, 96)):  # small blocks: a fixed block_size shows
        q, k, v = (randn(g, 1, n, 8) for _i in range(3))
        c = Call(name, q, k, v, block_size=block, causal=causal_)
        out = c.run(sub, watch=True)
        expect_close(out, tiled_reference(q, k, v, block, causal_), c, dtype=q.dtype)
        trace = getattr(sub, "last_trace", None)
        if trace is not None and trace.largest_numel >= n * n:
            raise fail(
                _(sentences.TENSOR_AS_FULL_MATRIX).format(
                    call=c, shape=fmt_shape(trace.largest_shape), count=trace.largest_numel, n=n
                ),
                "materialises-full-matrix",
            )
        if trace is not None and trace.largest_numel >= 2 * n * block:  # tiles of 2 blocks or more
            tile = fmt_shape(trace.largest_shape)
            raise fail(
                _(sentences.TILE_LARGER_THAN_BLOCK).format(call=c, shape=tile, block=block),
                "tiled-block-size-ignored",
            )
    check_row_trace(sub, g)  # few queries, many keys: a row of scores is two tiles
    # float64 kept, not computed in float32 and cast back: last, so that float32 code that also
    # builds the full matrix or ignores block_size is named by that
    q, k, v = cancelling_inputs()
    c = Call(name, q, k, v, block_size=2)
    expect_output_float64_kept(sub, c, tiled_reference(q, k, v, 2), tiled_reference)


def _width_of_q(out, qs, vs) -> bool:
    """Whether ``out`` could come from an accumulator shaped like q where d_v != d_k: the call
    raised (acc + p @ v cannot broadcast) or returned something not d_v wide. A right-shaped wrong
    output is never that, whatever the same code gives with v as wide as q (code that reads
    torch.empty's memory gave NaN here and was right there: trial 38)."""
    shape = getattr(out, "shape", None)
    return vs[-1] != qs[-1] and (out is None or shape is None or shape[-1:] != (vs[-1],))


def _right_with_v_as_q(sub, c) -> bool:
    """Wrong (or failing) with d_v != d_k, right with v as wide as q: the output or its
    accumulator is shaped like q (torch.zeros_like(q))."""
    q, k, v = c.args
    wide = Call(c.name, q, k, torch.cat([v] * q.shape[-1], -1)[..., : q.shape[-1]], **c.kwargs)
    return runs_right(sub, wide)


def _check_float32_accumulation(sub, dtype) -> None:
    """Half inputs, float32 arithmetic: the error is about the output's own rounding (at most 2.2
    times it for P @ V in half, as FlashAttention-2's kernels). Sums and exponentials kept in
    float16 or bfloat16 over 128 key blocks are 6-21 times worse; over 8 blocks they were 1.8-8
    times, and a bfloat16 sum passed once earlier checks drew other inputs (trial 38's w42).
    Inputs of its own generator: the same whatever the checks before it draw."""
    g = generator(119)
    q = randn(g, 2, 16, 32, dtype=dtype)
    k, v = (randn(g, 2, 1024, 32, dtype=dtype) for _i in range(2))
    c = Call("tiled_attention", q, k, v, block_size=8)
    out = c.run(sub)
    if not isinstance(out, torch.Tensor) or out.shape != q.shape:
        return
    want = tiled_reference(q, k, v, 8)
    rounding = float((want.to(dtype).double() - want).abs().max())
    error = float((out.double() - want).abs().max())
    if error > 2.5 * rounding:
        shown, exact = fmt_num(error), fmt_num(rounding)
        raise fail(
            _(sentences.TILED_HALF_ERROR).format(
                call=c, error=shown, times=error / rounding, rounding=exact, dtype=fmt_dtype(dtype)
            ),
            "tiled-half-accumulation",
        )


# ---- KVCache -----------------------------------------------------------------------------------


def _expect_appends(sub, steps, label_extra=""):
    obj, label = construct(sub, "KVCache")
    history = []
    append = method(obj, "append")
    for k, v in steps:
        past = [h[0].shape[-2] for h in history]
        c = Call(holding(label + label_extra, past) + ".append", k, v, params="append")
        mutants = cache_mutants(history, k, v)
        try:
            out = expect_tuple(c.run(append, mutants=mutants), c, 2, "a tuple (k_all, v_all)")
        except CheckFailure as failure:  # a crash of a later append: values cat with keys?
            with paused():  # the failing call stays the last one made
                if failure.mistake is None and history and _values_from_keys(sub):
                    failure.mistake = "kv-cache-values-not-stored"
            raise
        history.append((k, v))
        dtype = k.dtype
        if k.device.type == "meta":  # shapes only: torch.cat on meta would import torch._dynamo
            length = sum(h[0].shape[-2] for h in history)
            expect_meta(out[0], c, (*k.shape[:-2], length, k.shape[-1]), dtype, what="k_all")
            expect_meta(out[1], c, (*v.shape[:-2], length, v.shape[-1]), dtype, what="v_all")
            continue
        want_k = torch.cat([h[0] for h in history], -2)  # (..., L_past + L_new, K)
        want_v = torch.cat([h[1] for h in history], -2)
        try:
            expect_close(
                out[0], want_k.double(), c, what="k_all", dtype=dtype, mutants=mutants, whole=out
            )
            expect_close(
                out[1], want_v.double(), c, what="v_all", dtype=dtype, mutants=mutants, whole=out
            )
        except CheckFailure as failure:
            if failure.mistake == "kv-cache-not-stored" and keeps(obj, want_k.shape):
                failure.mistake = "kv-cache-returns-new-only"
            if failure.mistake is None and out[0] is None:  # self.k never set (on the class?)
                failure.mistake = "kv-cache-not-stored"
            if failure.mistake is None and len(history) > 1 and same_tensor(out[0], history[0][0]):
                failure.mistake = "kv-cache-not-stored"  # what the first append gave, no more
            if failure.mistake is None and truncated(out[0], want_k):
                failure.mistake = "kv-cache-drops-oldest"
            raise
        _expect_len(obj, label, history)
    return obj, label


def _values_from_keys(sub) -> bool:
    """Where keys and values are as wide, a second append's v_all is the first values, then the
    new keys: torch.cat([self.v, k]) (a crash where d_k != d_v)."""
    g = generator(126)
    obj, label = construct(sub, "KVCache")
    append = method(obj, "append")
    (k1, v1), (k2, v2) = ((randn(g, 1, 2, 3, 4), randn(g, 1, 2, 3, 4)) for _i in range(2))
    try:
        Call(label + ".append", k1, v1, params="append").run(append)
        out = Call(label + ".append", k2, v2, params="append").run(append)
    except CheckFailure:
        return False
    got = out[1] if isinstance(out, (tuple, list)) and len(out) == 2 else None
    want = torch.cat([v1, k2], -2)
    return isinstance(got, torch.Tensor) and got.shape == want.shape and torch.allclose(got, want)


def _expect_len(obj, label, history) -> None:
    """The notebook's __len__ (given) reads self.k: len(cache) is the number of cached positions,
    which decoding uses to number the new ones. A cache without __len__ is not judged on it."""
    try:
        got = obj.method("__len__")
    except LearnerError as err:
        if err.kind in ("AttributeError", "TypeError"):
            return
        raise learner_failed(Call(f"len({label})"), err) from None
    want = sum(k.shape[-2] for k, _v in history)
    if got != want:
        first = history[0][0]  # still the first append's length: the later ones never stored
        whole = (*first.shape[:-2], want, first.shape[-1])
        stuck = len(history) > 1 and got == first.shape[-2] and not keeps(obj, whole)
        raise fail(
            _(
                "len({cache}) is {got} after appending {lengths} positions; expected {want}: the "
                "given __len__ reads self.k, so keep all the keys so far in self.k."
            ).format(
                cache=label,
                got=got,
                lengths=" + ".join(str(k.shape[-2]) for k, _v in history),
                want=want,
            ),
            "kv-cache-not-stored" if stuck else "kv-cache-len-wrong",
        )


def _check_own_store(sub, g) -> None:
    """Two caches: what one stores must not show up in the other."""
    first, _first_label = construct(sub, "KVCache")
    k = randn(g, 1, 2, 3, 4)
    Call("KVCache().append", k, k, params="append").run(method(first, "append"))
    obj, label = construct(sub, "KVCache")
    k = randn(g, 1, 2, 1, 4)
    c = Call(f"{label}.append", k, k, params="append")
    out = c.run(method(obj, "append"))
    if isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
        if out[0].dim() == 4 and out[0].shape[-2] > 1:
            raise fail(
                _(sentences.CACHES_SHARE_STORE).format(call=c, count=out[0].shape[-2]),
                "kv-cache-shared-between-instances",
            )


def _decode(g, sub, steps=6):
    """Greedy decoding with a tiny one-layer model, with and without the learner's cache."""
    vocab, d = 7, 8
    emb, pos = randn(g, vocab, d).double(), randn(g, 16, d).double() * 0.5
    w_q, w_k, w_v = (randn(g, d, d).double() * d**-0.5 for _i in range(3))
    w_out = randn(g, d, vocab).double()

    def logits_last(x):  # x (1, L, D) -> logits of the last position
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        o = attend(q[:, -1:], k, v)[0]
        return (o + x[:, -1:]) @ w_out

    def embed(tokens, start):
        return emb[tokens][None] + pos[start : start + len(tokens)]  # (1, L, D)

    plain = [0]
    for _step in range(steps):
        plain.append(int(logits_last(embed(torch.tensor(plain), 0)).argmax()))
    obj, label = construct(sub, "KVCache")
    append = method(obj, "append")
    cached = [0]
    for t in range(steps):
        x = embed(torch.tensor(cached[-1:]), t)  # only the newest token, at position t
        c = Call(holding(label, [1] * t) + ".append", x @ w_k, x @ w_v, params="append")
        k_all, v_all = expect_tuple(c.run(append), c, 2, N_("a tuple (k_all, v_all)"))
        for got, what in ((k_all, "k_all"), (v_all, "v_all")):  # float64 in: float64 kept
            expect_tensor(got, c, shape=(1, t + 1, d), dtype=x.dtype, what=what)
        o = attend(x @ w_q, k_all, v_all)[0]
        cached.append(int(((o + x) @ w_out).argmax()))
    if cached != plain:
        raise fail(_(sentences.CACHED_DECODING_DIFFERS).format(cached=cached, plain=plain))


@exercise("KVCache")
def check_kv_cache(sub) -> None:
    g = generator(18)
    _check_own_store(sub, g)
    steps = [(randn(g, 1, 2, 3, 4), randn(g, 1, 2, 3, 5)) for _i in range(2)]  # a prompt, twice
    steps += [(randn(g, 1, 2, 1, 4), randn(g, 1, 2, 1, 5)) for _i in range(2)]  # then one token
    _expect_appends(sub, steps)
    _expect_appends(sub, [(randn(g, 2, 1, 4), randn(g, 2, 1, 4)) for _i in range(3)])  # (B, L, D)
    _decode(g, sub)
    _expect_appends(sub, long_appends(g))
    for dtype in low_precision_dtypes():
        _expect_appends(sub, [(randn(g, 1, 2, 3, 4, dtype=dtype),) * 2 for _i in range(2)])
    with on_meta():  # meta tensors have shapes but no data
        meta = [(torch.empty(1, 2, n, 4, device="meta"),) * 2 for n in (3, 1)]
        _expect_appends(sub, meta)


def _rules_tiled(sub) -> None:
    g = generator(117)
    q, k, v = randn(g, 1, 1, 1, 4), randn(g, 1, 1, 1, 4), randn(g, 1, 1, 1, 3)
    expect_contract_rules(sub, Call("tiled_attention", q, k, v), (1, 1, 1, 3), output=None)
    expect_true_gradients(
        sub, wide_call("tiled_attention", g, (1, 5, 4), (1, 5, 4), (1, 5, 3), block_size=2)
    )


def _rules_kv_cache(sub) -> None:
    obj, label = construct(sub, "KVCache")
    k = randn(generator(118), 1, 1, 1, 2)
    c = Call(label + ".append", k, k, params="append")
    expect_kept_dims(c.run(method(obj, "append")), c, ((1, 1, 1, 2), (1, 1, 1, 2)))
    # Gradients flow (COURSE_SPEC): what append returns has a gradient path to what it was given,
    # in a first append and in one onto what a plain append stored (not onto a graph already
    # backpropagated: a buffer written in place, as in a static cache, keeps it)
    for step in range(2):
        obj, label = construct(sub, "KVCache")
        c = Call(f"{label}.append", k, k, params="append")
        if step:
            c.run(method(obj, "append"))
        try:
            got = obj.apply_to_method("append", "gradients", (k, k), {}, None, None)
        except LearnerError as err:
            raise learner_failed(c, err) from None
        second = _(" (a second append)") if step else ""
        if isinstance(got, dict) and not (
            got.get("output_has_grad") and all(g is not None for g in got.get("args", []))
        ):
            raise fail(
                _(sentences.CACHE_BREAKS_AUTOGRAD).format(call=f"{c}{second}"),
                "breaks-autograd",
            )


check_tiled_attention = with_rules(check_tiled_attention, _rules_tiled)
check_kv_cache = with_rules(check_kv_cache, _rules_kv_cache)
check_sliding_window_mask = watched(check_sliding_window_mask)

"""Lesson 04: softmax and masks. ``softmax``, ``causal_mask``, ``padding_mask``, ``masked_scores``.

L positions, B batch; masks are bool, True = may attend.
"""

from __future__ import annotations

import torch

from autograder.i18n import N_, _
from autograder.kit import (
    Call,
    CheckFailure,
    exercise,
    expect_close,
    expect_mask,
    expect_meta,
    fail,
    fmt_num,
    fmt_shape,
    generator,
    low_precision_dtypes,
    on_meta,
    rand_mask,
    randn,
    ref_softmax,
)
from autograder.kit.expected import masked, padding, tril, triu
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    wide_call,
    with_rules,
)

INF = float("inf")

# ---- softmax ------------------------------------------------------------------------------------


def _plain_softmax(x, dim=-1, shift=None):
    e = (x - (x.amax(dim, keepdim=True) if shift is None else shift)).exp()
    return e / e.sum(dim, keepdim=True)


def _guarded_global_max(x, dim):
    """One max for the whole tensor (of its finite entries), with rows that sum to 0 kept at 0:
    a row far below the global max underflows to all zeros."""
    finite = x[x.isfinite()]
    e = (x - (finite.max() if finite.numel() else 0.0)).exp()
    s = e.sum(dim, keepdim=True)
    return e / torch.where(s == 0, 1.0, s)


def _guarded(e, dim):
    """e / its sum along dim, with rows that sum to 0 kept at 0 (a zero-sum guard)."""
    total = e.sum(dim, keepdim=True)
    return e / torch.where(total == 0, 1.0, total)


def _no_keepdim(x, dim, shift):
    """exp(x - max) / sum taken without keepdim, with the max taken with, without, or no max."""
    if shift == "keepdim":
        x = x - x.amax(dim, keepdim=True)
    elif shift == "no-keepdim":
        x = x - x.amax(dim)
    e = x.exp()
    return e / e.sum(dim)


SOFTMAX_MUTANTS = (  # the first that reproduces the learner's output names the mistake
    ("fully-masked-nan", lambda x, dim=-1: _plain_softmax(x, dim)),
    ("softmax-unstable", lambda x, dim=-1: _plain_softmax(x, dim, shift=0.0)),
    ("softmax-unstable", lambda x, dim=-1: _guarded(x.exp(), dim)),  # exp(x), rows of 0 kept
    ("softmax-global-max", lambda x, dim=-1: _plain_softmax(x, dim, shift=x.max())),
    ("softmax-global-max", lambda x, dim=-1: _guarded_global_max(x, dim)),
    *(
        ("sum-without-keepdim", lambda x, dim=-1, s=s: _no_keepdim(x, dim, s))
        for s in ("keepdim", "no-keepdim", "none")
    ),
    # square scores: the row maxes, taken without keepdim, shift the columns (trial 47)
    ("max-without-keepdim", lambda x, dim=-1: _plain_softmax(x, dim, shift=x.amax(dim))),
    ("ignores-dim-argument", lambda x, dim=-1: ref_softmax(x, -1)),
    ("ignores-dim-argument", lambda x, dim=-1: _sum_over_last(x, dim)),  # the max on dim only
    ("ignores-dim-argument", lambda x, dim=-1: _max_over_last(x, dim)),  # the sum on dim only
    *(("softmax-wrong-dim", lambda x, dim=-1, d=d: _softmax_other(x, dim, d)) for d in (0, 1, 2)),
)


def _sum_over_last(x, dim):
    """The max taken along ``dim`` but the sum along the last dim (bug-softmax half fixed)."""
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def _max_over_last(x, dim):
    """Each row's max along the last dim subtracted, the sum taken along ``dim``: the shift then
    varies along ``dim``, which softmax is not invariant to."""
    e = (x - x.amax(-1, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


def _softmax_other(x, dim, other):
    if other >= x.dim() or other == dim % x.dim():
        raise ValueError("not another dim")
    return ref_softmax(x, other)


SOFTMAX_FORBID = (
    "torch.softmax",
    "torch.nn.functional.softmax",
    "torch.Tensor.softmax",
    "torch.nn.functional.log_softmax",
    "torch.log_softmax",
    "torch.Tensor.log_softmax",
    "torch.special.softmax",
    "aten._softmax",
    "aten._log_softmax",
    "aten._safe_softmax",
    # exp(x - logsumexp(x)) is softmax with the stable normaliser done for you
    "torch.logsumexp",
    "torch.Tensor.logsumexp",
    "torch.special.logsumexp",
    "aten.logsumexp",
    # the rest of the normaliser family: a running logsumexp, or log-softmax then exp
    "torch.logcumsumexp",
    "torch.Tensor.logcumsumexp",
    "aten.logcumsumexp",
    "aten._logcumsumexp",
    "torch.special.log_softmax",
    "torch.nn.Softmax",
    "torch.nn.LogSoftmax",
    "torch.nn.Softmin",
    "torch.nn.functional.softmin",
)


_LOGSUMEXP = N_(
    "does the max-subtraction for you: exp(x - logsumexp(x)) is softmax with its stable "
    "normaliser built in (log-softmax's cousin), and the lesson forbids it"
)


@exercise(
    "softmax",
    forbid=SOFTMAX_FORBID,
    forbid_why={
        name: _LOGSUMEXP for name in SOFTMAX_FORBID if "logsumexp" in name or "logcumsumexp" in name
    },
)
def check_softmax(sub) -> None:
    g = generator(5)
    cases = (
        (randn(g, 3, 3), {}),  # square: a sum without keepdim divides by the wrong row's sum
        (randn(g, 2, 5), {}),
        (randn(g, 4, 3), {"dim": 0}),
        (randn(g, 2, 3, 4), {"dim": 1}),
        (torch.tensor([[1000.0, 999.0, 998.0], [-1000.0, -999.0, -1001.0]]), {}),  # huge inputs
        (torch.tensor([[0.0, 1.0, 2.0], [-1000.0, -1001.0, -1002.0]]), {}),  # very different rows
        (torch.tensor([[-INF, -INF, -INF], [0.0, -INF, 1.0]]), {}),  # a fully masked row
        (torch.tensor([[-INF, -INF], [2.0, -INF]]), {"dim": 0}),
        # a row far below 0: a max floored 'against -inf' (clamp(min=-1e4)) gives it zeros (rows
        # of -2e4 would do, but log-sum-exp code rounds there: exp(x - lse) is 1e-3 off)
        (torch.tensor([[-1e30, -2e30, -3e30]]), {}),
        # dim 0 of three: moving it last and back is no swap (movedim(dim, -1) twice is wrong)
        (randn(generator(6), 2, 3, 4), {"dim": 0}),
    )
    for x, kwargs in cases:
        c = Call("softmax", x, **kwargs)
        out = c.run(sub, mutants=SOFTMAX_MUTANTS)
        want = ref_softmax(x, kwargs.get("dim", -1))
        expect_close(out, want, c, dtype=x.dtype, mutants=SOFTMAX_MUTANTS)
    for dtype in low_precision_dtypes():
        x = (randn(g, 3, 5) * 8).to(dtype)  # exp(16) already overflows float16 without the max
        x[0] = -INF
        c = Call("softmax", x)
        out = c.run(sub, mutants=SOFTMAX_MUTANTS)
        expect_close(out, ref_softmax(x), c, dtype=dtype, mutants=SOFTMAX_MUTANTS)
    with on_meta():  # meta tensors have shapes but no data
        c = Call("softmax", torch.empty(2, 3, 4, device="meta"), dim=1)
        expect_meta(c.run(sub), c, (2, 3, 4), torch.float32)


# ---- causal_mask -------------------------------------------------------------------------------


CAUSAL_MUTANTS = (
    ("causal-mask-inverted", lambda n, device=None: triu(n, 1)),
    ("causal-off-by-one", lambda n, device=None: tril(n, -1)),
    ("causal-off-by-one", lambda n, device=None: tril(n, 1)),
    ("causal-upper-triangle", lambda n, device=None: triu(n)),
)


# A length past every fixed size a mask is commonly made for once and cut from (nanoGPT's
# block_size of 1024, the 8 of "Let's build GPT"): trial 47's caches of 7 and 8 passed.
LONG = 1029


def expect_not_cut(out, want: torch.Tensor, c: Call, explained=()) -> None:
    """[mask-fixed-size]: a bool mask shorter than asked for along some dims, and right as far
    as it goes: cut from one made once for a fixed largest length (not a shape the inputs
    explain, ``explained``: a padding mask as wide as the longest sequence ignored max_len)."""
    if not isinstance(out, torch.Tensor) or out.dtype != torch.bool or out.dim() != want.dim():
        return
    if out.device.type == "meta" or out.shape in (want.shape, *explained):
        return
    if any(k > n for k, n in zip(out.shape, want.shape, strict=True)):
        return
    if torch.equal(out, want[tuple(slice(0, k) for k in out.shape)]):
        raise fail(
            _(
                "{call}: the mask has shape {shape}, expected {expected}; it is right as far as it "
                "goes, like a mask cut from one made for a fixed largest length."
            ).format(call=c, shape=fmt_shape(out.shape), expected=fmt_shape(want.shape)),
            "mask-fixed-size",
        )


@exercise("causal_mask")
def check_causal_mask(sub) -> None:
    for n in (4, 1, 7, LONG):
        c = Call("causal_mask", n)
        out, want = c.run(sub, mutants=CAUSAL_MUTANTS), tril(n)
        expect_not_cut(out, want, c)
        expect_mask(out, want, c, mutants=CAUSAL_MUTANTS)
    with on_meta():  # meta tensors have shapes but no data
        # a length made on the CPU above: a mask cached by seq_len alone ignores the device
        c = Call("causal_mask", 4, device="meta")
        out = c.run(sub)
        expect_meta(out, c, (4, 4), torch.bool, what="the mask")


# ---- padding_mask ------------------------------------------------------------------------------


PADDING_MUTANTS = (
    ("padding-mask-inverted", lambda lengths, max_len: ~padding(lengths, max_len)),
    ("padding-off-by-one", lambda lengths, max_len: torch.arange(max_len) <= lengths[:, None]),
    ("padding-off-by-one", lambda lengths, max_len: torch.arange(max_len) < lengths[:, None] - 1),
    ("padding-mask-transposed", lambda lengths, max_len: padding(lengths, max_len).T),
)


@exercise("padding_mask")
def check_padding_mask(sub) -> None:
    cases = (
        (torch.tensor([2, 4, 1]), 4),
        (torch.tensor([3, 0]), 5),  # an empty sequence
        (torch.tensor([5, 5, 2, 1], dtype=torch.int32), 5),
        (torch.tensor([LONG - 2, 3]), LONG),
    )
    for lengths, max_len in cases:
        c = Call("padding_mask", lengths, max_len)
        out, want = c.run(sub, mutants=PADDING_MUTANTS), padding(lengths.long(), max_len)
        longest = (len(lengths), int(lengths.max()))  # max_len ignored: named by its shape
        expect_not_cut(out, want, c, explained=[longest])
        expect_mask(out, want, c, mutants=PADDING_MUTANTS, rows="sequence")
    with on_meta():  # meta tensors have shapes but no data
        c = Call("padding_mask", torch.empty(3, dtype=torch.long, device="meta"), 6)
        expect_meta(c.run(sub), c, (3, 6), torch.bool, what="the mask")


# ---- masked_scores -----------------------------------------------------------------------------


MASKED_MUTANTS = (
    ("mask-polarity-inverted", lambda s, m: s.masked_fill(m, -INF)),
    ("masked-to-zero", lambda s, m: s * m),
)


def _finite_fill(out, scores, mask) -> float | None:
    """The finite negative value masked positions hold, if that is what is wrong: very negative
    (-1e9, finfo.min, scores - 1e4), or one constant such as -100 (exp(-100) is not 0)."""
    mask = mask.expand_as(scores)
    if not isinstance(out, torch.Tensor) or out.shape != scores.shape or not bool((~mask).any()):
        return None
    fills = out[~mask].double()
    kept_ok = torch.equal(out[mask].double(), scores[mask].double())
    if not kept_ok or not bool(fills.isfinite().all()):
        return None
    constant = bool((fills == fills[0]).all()) and float(fills[0]) < 0
    return float(fills.min()) if constant or float(fills.max()) <= -1e3 else None


@exercise("masked_scores")
def check_masked_scores(sub) -> None:
    g = generator(6)
    fully = torch.tensor([[True, False, True, False], [False] * 4, [True] * 4])
    cases = (
        (randn(g, 3, 4), rand_mask(g, 3, 4)),
        (randn(g, 3, 4), fully),  # a fully masked row is just -inf everywhere
        (randn(g, 2, 3, 5), rand_mask(g, 2, 1, 5)),  # a padding-style mask, broadcast
        (randn(g, 2, 4, 4), tril(4)),  # a causal mask broadcast over the batch
        (randn(g, 2, 2, 3, 4), rand_mask(g, 3, 4)),  # (Lq, Lk) over batch and heads
    )
    for dtype in (torch.float32, *low_precision_dtypes()):
        for scores, mask in cases if dtype == torch.float32 else cases[:1]:
            scores = scores.to(dtype)
            c = Call("masked_scores", scores, mask)
            out = c.run(sub, mutants=MASKED_MUTANTS)
            want = masked(scores.double(), mask)
            value = _finite_fill(out, scores, mask)
            if value is not None:
                # Does the same fill survive float16? -1e9 does not; finfo(dtype).min does.
                c16 = Call("masked_scores", scores.half(), mask)
                try:
                    c16.run(sub)
                    mistake = "finite-fill-value"
                except CheckFailure as failure:
                    if dtype != torch.float16:  # show the float16 case the fill fails on
                        raise fail(
                            _(
                                "{call}: masked-out scores are {value}; this dtype holds "
                                "that, but on float16 scores the same code fails:\n{failure}"
                            ).format(call=c, value=fmt_num(value), failure=failure.message),
                            failure.mistake or "fill-overflows-fp16",
                        ) from None
                    mistake = failure.mistake or "finite-fill-value"
                raise fail(
                    _(
                        "{call}: masked-out scores are {value}; they must be -inf, so that "
                        "softmax gives them weight exactly 0 in every row and every float dtype."
                    ).format(call=c, value=fmt_num(value)),
                    mistake,
                )
            expect_close(out, want, c, dtype=dtype, mutants=MASKED_MUTANTS)
    with on_meta():  # meta tensors have shapes but no data
        c = Call(
            "masked_scores",
            torch.empty(2, 3, 4, device="meta"),
            torch.empty(3, 4, dtype=torch.bool, device="meta"),
        )
        expect_meta(c.run(sub), c, (2, 3, 4), torch.float32)


def _rules_softmax(sub) -> None:
    c = Call("softmax", randn(generator(106), 1, 1, 1))
    expect_contract_rules(sub, c, (1, 1, 1), output=None)
    expect_true_gradients(sub, wide_call("softmax", 106, (2, 3, 4)))


def _rules_masked_scores(sub) -> None:
    scores, mask = randn(generator(107), 1, 1, 2), torch.ones(1, 2, dtype=torch.bool)
    expect_contract_rules(sub, Call("masked_scores", scores, mask), (1, 1, 2), output=None)


check_softmax = with_rules(check_softmax, _rules_softmax)
check_masked_scores = with_rules(check_masked_scores, _rules_masked_scores)

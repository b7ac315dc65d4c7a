"""Lesson 07: positions. ``sinusoidal_positional_encoding``, ``LearnedPositionalEmbedding``,
``apply_rope``.

P positions, D d_model (or head dim for RoPE), I = D/2 frequency pairs.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from autograder.i18n import _
from autograder.kit import (
    DTYPE_PROMOTED,
    Call,
    construct,
    diagnose,
    exercise,
    expect_close,
    expect_layers,
    expect_meta,
    expect_tensor,
    fail,
    fmt_dtype,
    fmt_num,
    generator,
    load_weights,
    low_precision_dtypes,
    on_meta,
    randn,
    same,
    tolerance,
)
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import frequencies, rope, sinusoid
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    wide_call,
    with_rules,
)
from autograder.kit.module_calls import expect_module_calls
from autograder.kit.positional import expect_same_by_position
from autograder.kit.repeat import paused

from .probes import (
    expect_lpe_gradients,
    expect_plain_table,
    is_sinusoid_table,
    rope_angles_in,
    rope_angles_tiled,
    rope_positions_int16,
    rows_or_scale,
    sinusoid_at,
    sinusoid_half,
    unrotated_pairs,
)

# ---- sinusoidal_positional_encoding -------------------------------------------------------------


SINUSOID_MUTANTS = (
    ("sin-cos-swapped", lambda n, d: sinusoid(n, d, how="swapped")),
    ("frequency-exponent-i", lambda n, d: sinusoid(n, d, exponent=1.0)),
    ("frequency-exponent-i", lambda n, d: sinusoid(n, d, exponent=4.0)),
    ("frequency-exponent-i", lambda n, d: sinusoid(n, d, exponent=2 * d / max(d - 2, 1))),
    ("sinusoid-concatenated", lambda n, d: sinusoid(n, d, how="halves")),
    ("positions-start-at-one", lambda n, d: sinusoid(n + 1, d)[1:]),
    ("positions-normalised", lambda n, d: sinusoid_at(torch.linspace(0, 1, n), d)),
    ("positions-normalised", lambda n, d: sinusoid_at(torch.arange(n) / n, d)),
    *(
        ("pe-angles-in-half", lambda n, d, t=t, e=e, trig=trig: sinusoid_half(n, d, t, e, trig))
        for t in (torch.float16, torch.bfloat16)
        for e in (True, False)
        for trig in (False, True)
    ),
    *(  # only the positions made half: torch.arange(max_len, dtype=torch.float16)
        ("pe-angles-in-half", lambda n, d, t=t: sinusoid_at(torch.arange(n).to(t), d))
        for t in (torch.float16, torch.bfloat16)
    ),
    ("pe-table-batch-dim", lambda n, d: sinusoid(n, d)[None]),  # pe.unsqueeze(0), as a buffer
    ("positions-int-overflow", lambda n, d: sinusoid_at(torch.arange(n, dtype=torch.int16), d)),
)


@exercise("sinusoidal_positional_encoding")
def check_sinusoidal_positional_encoding(sub) -> None:
    for max_len, d in ((4, 6), (1, 2), (10, 8), (50, 16), (4100, 4), (40000, 2)):  # fp16, int16
        c = Call("sinusoidal_positional_encoding", max_len, d)
        out = c.run(sub, mutants=SINUSOID_MUTANTS)
        try:
            expect_close(
                out, sinusoid(max_len, d), c, dtype=torch.float32, mutants=SINUSOID_MUTANTS
            )
        except CheckFailure as failure:
            if failure.mistake is None and is_sinusoid_table(out, (max_len, d)):
                failure.mistake = "pe-wrong-frequencies"
            raise
    c = Call("sinusoidal_positional_encoding", 4, 5)
    c.expect_error(sub, "ValueError", _("d_model must be even"), "no-value-error")


# ---- LearnedPositionalEmbedding ----------------------------------------------------------------


@exercise("LearnedPositionalEmbedding")
def check_learned_positional_embedding(sub) -> None:
    g = generator(12)
    max_len, d = 6, 4
    obj, label = construct(sub, "LearnedPositionalEmbedding", max_len, d)
    layers = {"embedding": {"type": "Embedding", "num_embeddings": max_len, "embedding_dim": d}}
    known = {("embedding", "num_embeddings", max_len + 1): "max-len-refused"}
    expect_layers(obj, label, layers, known=known)
    table = randn(g, max_len, d)
    load_weights(obj, {"embedding.weight": table}, label)
    obj.eval()
    for shape in ((5, 3, d), (1, max_len, d), (3, 1, d)):  # B·L = 15 > max_len: L is x.size(1)
        x = randn(g, *shape)
        n = shape[1]
        mutants = (
            ("positions-not-added", lambda x, n=n: table[:n].double()),
            ("positions-not-added", lambda x, n=n: table[:n].double()[None]),
            ("positions-not-added", lambda x, n=n: table[:n].double().expand(x.shape)),
            # L = x.size(0): as many positions as sequences in the batch
            ("positions-from-batch-dim", lambda x: x.double() + table[: x.shape[0]].double()),
            # L = x.size(-1): as many positions as features (a broadcast error unless L == d)
            ("positions-from-batch-dim", lambda x: x.double() + table[: x.shape[-1]].double()),
            ("positions-from-batch-dim", lambda x: table[: x.shape[-1]].double() + x.double()),
            ("positions-by-batch-index", lambda x: x + table[: x.shape[0], None].double()),
            ("positions-start-at-one", lambda x, n=n: x + table[1 : n + 1].double()),
            # position max_len - 1 + 1 is past the table: nn.Embedding's IndexError
            ("positions-start-at-one", lambda x, n=n: F.embedding(torch.arange(1, n + 1), table)),
        )
        c = Call(label, x, params="forward")
        try:
            out = c.run(obj, mutants=mutants)
        except CheckFailure as failure:
            if " ValueError: " in failure.message:  # in any language; L fits the table
                failure.mistake = "max-len-refused" if n == max_len else "positions-from-batch-dim"
            failure.mistake = failure.mistake or rows_or_scale(obj, label, table, x, None)
            raise
        try:
            expect_close(out, x.double() + table[:n].double(), c, dtype=x.dtype, mutants=mutants)
        except CheckFailure as failure:
            if failure.mistake is None:
                with paused():  # a probe to name it: the failing call stays the last one made
                    failure.mistake = rows_or_scale(obj, label, table, x, out)
            raise
    c = Call(label, randn(g, 1, max_len + 1, d), params="forward")
    c.expect_error(
        obj,
        "ValueError",
        _("the sequence is longer than max_len={max_len}").format(max_len=max_len),
        "no-value-error",
    )
    for dtype in low_precision_dtypes():
        obj.to(dtype)
        x = randn(g, 2, 3, d, dtype=dtype)
        c = Call(f"{label}.to({fmt_dtype(dtype)})", x, params="forward")
        want = x.double() + table[:3].to(dtype).double()
        expect_close(c.run(obj), want, c, dtype=dtype, mutants=DTYPE_PROMOTED)
    _expect_far_half_positions(sub, g)
    with on_meta():  # meta tensors have shapes but no data
        obj.to(torch.float32)
        obj.to("meta")
        c = Call(label + ".to('meta')", torch.empty(2, 3, d, device="meta"), params="forward")
        expect_meta(c.run(obj), c, (2, 3, d), torch.float32)


def _expect_far_half_positions(sub, g) -> None:
    """Half inputs 2050 tokens long: positions made in x's dtype (``torch.arange(L,
    dtype=x.dtype)`` or ``.type_as(x)``, then ``.long()``) lose whole numbers past 2048 in
    float16 and past 256 in bfloat16, and pick wrong rows (trial 48)."""
    far = 2050
    obj, label = construct(sub, "LearnedPositionalEmbedding", far, 2)
    table = randn(g, far, 2)
    load_weights(obj, {"embedding.weight": table}, label)
    obj.eval()
    for dtype in low_precision_dtypes():
        obj.to(dtype)
        x = randn(g, 1, far, 2, dtype=dtype)
        c = Call(f"{label}.to({fmt_dtype(dtype)})", x, params="forward")
        rounded = torch.arange(far).to(dtype).long().clamp(max=far - 1)
        mutants = (("lpe-positions-in-half", lambda x, r=rounded: x + table[r].to(x.dtype)),)
        want = x.double() + table.to(dtype).double()
        expect_close(c.run(obj, mutants=mutants), want, c, dtype=dtype, mutants=mutants)


# ---- apply_rope --------------------------------------------------------------------------------


def _rope_mutant(**knobs):
    return lambda x, positions=None, base=10000.0: rope(x, positions, base, **knobs)


def _rope_halves_pair_frequencies(x, positions=None, base=10000.0):
    """Split-half rotate_half with RoFormer's repeat_interleave'd frequencies [θ0, θ0, θ1, ...]:
    two conventions mixed, so x[..., j] and x[..., j + d/2] turn by different angles."""
    x = x.double()
    n, d = x.shape[-2], x.shape[-1]
    p = torch.arange(n) if positions is None else positions
    angle = (p.double()[:, None] * frequencies(d, base)).repeat_interleave(2, -1)  # (P, D)
    half = torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1)
    return x * angle.cos() + half * angle.sin()


def _rope_from_one(x, positions=None, base=10000.0):
    """Default positions 1..L instead of 0..L-1."""
    n = x.shape[-2]
    return rope(x, torch.arange(1, n + 1) if positions is None else positions, base)


def _rope_given_from_one(x, positions=None, base=10000.0):
    """Given positions taken as 1-based: rotated by positions - 1."""
    if positions is None:
        raise ValueError("a mistake of given positions")
    return rope(x, positions - 1, base)


def _rope_pair_swapped(x, positions=None, base=10000.0):
    """The right rotation, each pair written back in the other order: x'[2i] <-> x'[2i+1]."""
    out = rope(x, positions, base)
    return torch.stack([out[..., 1::2], out[..., 0::2]], -1).flatten(-2)


ROPE_MUTANTS = (  # base ignored first: 100^(-4i/d) is 10000^(-2i/d), an exponent mistake's value
    ("rope-pair-swapped", _rope_pair_swapped),
    ("rope-base-ignored", lambda x, positions=None, base=10000.0: rope(x, positions)),
    ("rope-half-split", _rope_mutant(how="halves")),
    ("rope-half-split", _rope_halves_pair_frequencies),
    ("rope-output-concatenated", _rope_mutant(how="concat-output")),
    ("rope-wrong-direction", _rope_mutant(sign=-1.0)),
    ("rope-positions-ignored", _rope_mutant(how="ignore-positions")),
    ("frequency-exponent-i", _rope_mutant(exponent=1.0)),
    ("frequency-exponent-i", _rope_mutant(exponent=4.0)),
    *(("rope-angles-in-half", rope_angles_in(t)) for t in (torch.float16, torch.bfloat16)),
    ("positions-start-at-one", _rope_from_one),
    ("positions-start-at-one", _rope_given_from_one),
    ("rope-angles-tiled", rope_angles_tiled),
    ("positions-int-overflow", rope_positions_int16),
)


def _check_relative(sub, g) -> None:
    """RoPE's point: after rotation, q·k depends only on the offset between their positions."""
    x = randn(g, 2, 8)  # row 0 is a query, row 1 a key
    dots = []
    for positions in (torch.tensor([3, 1]), torch.tensor([10, 8])):
        c = Call("apply_rope", x, positions=positions)
        out = c.run(sub, mutants=ROPE_MUTANTS)
        expect_tensor(out, c, shape=x.shape, dtype=x.dtype, mutants=ROPE_MUTANTS)
        dots.append((c, out, float(out[0].double() @ out[1].double())))
    (c1, out1, d1), (_c2, _out2, d2) = dots
    if abs(d1 - d2) > 1e-4 * max(1.0, abs(d1)):
        raise fail(
            _(
                "apply_rope must make q·k depend only on the offset between positions: q at 3 "
                "and k at 1 give q·k = {first}, q at 10 and k at 8 give {second} (the same "
                "offset s − p = −2 from the key to the query). Called as {call}."
            ).format(first=fmt_num(d1), second=fmt_num(d2), call=c1),
            diagnose(out1, c1, ROPE_MUTANTS),
        )


def _expect_rope(sub, x, kwargs) -> None:
    c = Call("apply_rope", x, **kwargs)
    out = None
    try:
        out = c.run(sub, mutants=ROPE_MUTANTS)
        expect_close(out, rope(x, **kwargs), c, dtype=x.dtype, mutants=ROPE_MUTANTS)
    except CheckFailure as failure:
        if failure.mistake is None:
            with paused():  # probes to name it: the failing call stays the last one made
                failure.mistake = (
                    _not_rotated(x, out)
                    or _length_from_wrong_dim(sub, x, kwargs)
                    or _other_frequencies(sub)
                )
        raise


def _not_rotated(x, out) -> str | None:
    """A rotation keeps each pair's length: an output whose pairs (out[..., 2i], out[..., 2i+1])
    are longer or shorter than x's has a sign, a cos/sin or a partner mixed up."""
    if not isinstance(out, torch.Tensor) or out.shape != x.shape or not out.isfinite().all():
        return None
    x, out = x.double(), out.double()
    length = x[..., 0::2] ** 2 + x[..., 1::2] ** 2
    kept = torch.allclose(out[..., 0::2] ** 2 + out[..., 1::2] ** 2, length, rtol=1e-3, atol=1e-4)
    return None if kept else "rope-not-a-rotation"


def _other_frequencies(sub) -> str | None:
    """A rotation by p·w_i with other frequencies w_i than base^(-2i/d) (an exponent in integer
    division, another base): pairs (1, 0) at positions 0..7 come out as (cos p·w_i, sin p·w_i)."""
    x = torch.zeros(8, 8)
    x[:, 0::2] = 1.0
    try:
        out = Call("apply_rope", x).run(sub)
    except CheckFailure:
        return None
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        return None
    cos, sin = out.double()[:, 0::2], out.double()[:, 1::2]
    w = torch.atan2(sin[1], cos[1])  # each pair's angle per position
    p = torch.arange(8, dtype=torch.float64)[:, None]
    rotated = torch.allclose(cos, (p * w).cos(), atol=1e-4) and torch.allclose(
        sin, (p * w).sin(), atol=1e-4
    )
    if rotated and unrotated_pairs(w):
        return "rope-partial-rotation"
    return "pe-wrong-frequencies" if rotated else None


def _length_from_wrong_dim(sub, x, kwargs) -> str | None:
    """Right when every dim of x has the same size, wrong otherwise: the default positions'
    length L was read from another dim than x.shape[-2] (x.size(0), x.size(1), d)."""
    d = x.shape[-1]
    if "positions" in kwargs or set(x.shape) == {d}:
        return None
    square = randn(generator(115), *(d,) * x.dim())
    c = Call("apply_rope", square, **kwargs)
    try:
        out = c.run(sub)
    except CheckFailure:
        return None
    right = same(out, rope(square, **kwargs), tolerance(square.dtype))
    if right:  # or the frequencies divided by L: then positions given as 0..L-1 are wrong too
        given = {"positions": torch.arange(x.shape[-2])}
        right = same(Call("apply_rope", x, **given).run(sub), rope(x, **given), tolerance(x.dtype))
    return "rope-length-wrong-dim" if right else None


@exercise("apply_rope")
def check_apply_rope(sub) -> None:
    g = generator(13)
    for shape, kwargs in (((3, 4), {}), ((2, 5, 6), {})):
        _expect_rope(sub, randn(g, *shape), kwargs)
    _check_relative(sub, g)
    cases = (
        ((2, 2, 3, 8), {"positions": torch.tensor([5, 6, 7])}),  # new tokens after a cache of 5
        ((2, 2, 1, 8), {"positions": torch.tensor([7])}),  # one token decoded after a cache of 7
        ((4, 6), {"positions": torch.tensor([0, 2, 4, 9])}),
        ((2, 3, 8), {"base": 100.0}),
        ((2, 4, 3, 6), {}),  # (B, h, L, d) without positions: L is x.shape[-2]
        ((1, 3, 5, 4), {}),
    )
    for shape, kwargs in cases:
        _expect_rope(sub, randn(g, *shape), kwargs)
    x, far = randn(g, 2, 2), torch.tensor([32768, 70001])  # past int16; θ = 1: exact in float32
    for c in (Call("apply_rope", x, positions=far), Call("apply_rope", randn(g, 32770, 2))):
        want = rope(*c.args, **c.kwargs)  # the second: default positions past int16 too
        expect_close(c.run(sub), want, c, dtype=x.dtype, mutants=ROPE_MUTANTS)
    for dtype in low_precision_dtypes():
        x = randn(g, 2, 4, 8, dtype=dtype)
        c = Call("apply_rope", x)
        expect_close(c.run(sub), rope(x), c, dtype=dtype, mutants=DTYPE_PROMOTED)
        _expect_far_positions(
            sub, randn(g, 2, 4, 8, dtype=dtype), torch.tensor([2049, 3001, 4095, 5003])
        )
        _expect_far_positions(sub, randn(g, 4100, 2, dtype=dtype), None)  # default 0..4099
    with on_meta():  # meta tensors have shapes but no data
        c = Call("apply_rope", torch.empty(2, 5, 8, device="meta"))
        expect_meta(c.run(sub), c, (2, 5, 8), torch.float32)


def _expect_far_positions(sub, x, positions) -> None:
    """Half inputs at positions past 2048, where float16 holds no longer every integer: angles
    p·θ computed in x.dtype are off by radians, while float32 angles give the exact rotation to
    the output's own rounding. Named when the same call in float32 is right. ``positions`` None:
    the default positions of a long x, created in x.dtype they are as far off."""
    kw = {} if positions is None else {"positions": positions}
    c = Call("apply_rope", x, **kw)
    try:
        out = c.run(sub, mutants=DTYPE_PROMOTED)
        expect_close(out, rope(x, positions), c, dtype=x.dtype, mutants=DTYPE_PROMOTED)
    except CheckFailure as failure:
        if failure.mistake is None:
            wide = x.float()
            try:
                right = same(
                    Call("apply_rope", wide, **kw).run(sub),
                    rope(wide, positions),
                    tolerance(torch.float32),
                )
            except CheckFailure:
                right = False
            failure.mistake = "rope-angles-in-half" if right else None
        raise


def _rules_learned(sub) -> None:
    g = generator(113)
    obj, label = construct(sub, "LearnedPositionalEmbedding", 4, 3)
    c = Call(label, randn(g, 1, 1, 3), params="forward")
    expect_contract_rules(obj, c, (1, 1, 3), output=None)
    expect_plain_table(obj, label, c)  # a frozen row first: named by what froze it
    expect_lpe_gradients(obj, label, c)
    expect_module_calls(sub, "LearnedPositionalEmbedding", (6, 4), (2, 4, 4))


def _rules_rope(sub) -> None:
    c = Call("apply_rope", randn(generator(114), 1, 1, 1, 4))
    expect_contract_rules(sub, c, (1, 1, 1, 4), output=None)
    expect_true_gradients(sub, wide_call("apply_rope", 124, (1, 1, 3, 4)))
    kwargs = {"positions": torch.tensor([4, 5, 9]), "base": 100.0}
    expect_same_by_position(sub, "apply_rope", (randn(generator(118), 2, 3, 8),), kwargs)


check_learned_positional_embedding = with_rules(check_learned_positional_embedding, _rules_learned)
check_apply_rope = with_rules(check_apply_rope, _rules_rope)

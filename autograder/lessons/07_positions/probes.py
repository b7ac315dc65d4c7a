"""Lesson 07: probes that name a wrong ``LearnedPositionalEmbedding`` by what it looked up or a
wrong ``apply_rope`` by its angles, and sinusoid tables as known mistakes compute them."""

from __future__ import annotations

import torch

from autograder.i18n import _, enumeration
from autograder.kit import Call, LearnerError, fail
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import frequencies
from autograder.kit.gradients import expect_true_gradients, sparse_gradients, wide_call
from autograder.kit.repeat import paused


def expect_lpe_gradients(obj, label, shown) -> None:
    """The gradients agree with the values for two sequences, where each position occurs twice
    in the batch; wrong there but right for one sequence, they are rescaled by how often a
    position occurs (nn.Embedding's scale_grad_by_freq=True). ``shown``: a Call for the names."""
    try:
        expect_true_gradients(obj, wide_call(label, 125, (2, 3, 3), params=shown))
    except CheckFailure as failure:
        if failure.mistake != "gradient-path-detached":
            raise
        try:
            with paused():
                expect_true_gradients(obj, wide_call(label, 125, (1, 3, 3), params=shown))
        except CheckFailure:
            raise failure from None
        failure.mistake = "embedding-gradient-rescaled"
        failure.message = _(
            "{call}: the gradient of embedding.weight is the derivative of the output for one "
            "sequence, not for two, where each position occurs twice: it is rescaled by how "
            "often a position occurs (scale_grad_by_freq=True?)."
        ).format(call=wide_call(label, 125, (2, 3, 3), params=shown))
        raise


def expect_plain_table(obj, label, c) -> None:
    """Every position trains, with the optimizers of lesson 08: a table built with padding_idx
    (copied from a token embedding) keeps that row at zero, with no gradient; a lookup with
    sparse=True (nn.Embedding's, or F.embedding's in forward) gives a sparse gradient, which
    Adam and AdamW refuse. ``c``: a call of the module."""
    try:
        pad = obj.attr("embedding.padding_idx")
    except LearnerError:
        pad = None
    if isinstance(pad, int):
        raise fail(
            _(
                "{module}.embedding has padding_idx={pad}: row {pad} of the table, position "
                "{pad}'s embedding, stays zero and gets no gradient, so it cannot train. Build "
                "it without padding_idx."
            ).format(module=label, pad=pad),
            "breaks-autograd",
        )
    try:
        sparse = sparse_gradients(obj, c)
    except LearnerError:
        return  # the gradient checks say why backward fails
    if sparse:
        raise fail(
            _(
                "{call}: after backward(), the gradient of {names} is a sparse tensor (an "
                "embedding looked up with sparse=True), which torch.optim.Adam and AdamW refuse "
                "(lesson 08 trains with AdamW). Look the positions up without sparse=True."
            ).format(call=c, names=enumeration(sparse[:2])),
            "embedding-sparse-gradient",
        )


def rows_or_scale(obj, label, table, x, out) -> str | None:
    """Which rows of the table the positions 0..L-1 got (the output for x = 0 is those rows):
    shifted, reversed or right-aligned rows name a mistake of the positions; the right rows with
    x scaled (x * sqrt(d_model) + positions) name that. ``out`` None (the call raised): right
    where L is the table's max_len, the whole table was added."""
    n = x.shape[1]
    if out is None:
        with paused():  # the failing call stays the last one made
            return _whole_table(obj, label, table, x) if n < table.shape[0] else None
    c = Call(label, torch.zeros(1, n, x.shape[2]), params="forward")
    try:
        rows_out = c.run(obj)
    except CheckFailure:
        return None
    if not isinstance(rows_out, torch.Tensor) or rows_out.shape != (1, n, x.shape[2]):
        return None
    rows = []
    for got in rows_out[0].double():
        found = [r for r, row in enumerate(table.double()) if torch.allclose(got, row, atol=1e-5)]
        if not found:
            return None
        rows.append(found[0])
    if rows == list(range(1, n + 1)):
        return "positions-start-at-one"
    if rows != list(range(n)):
        return "positions-wrong-rows"
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        return None
    moved, x = out.double() - table[:n].double(), x.double()
    scale = float((moved * x).sum() / (x * x).sum())
    scaled = abs(scale - 1) > 1e-3 and torch.allclose(moved, scale * x, atol=1e-4, rtol=1e-4)
    return "lpe-input-scaled" if scaled else None


def _whole_table(obj, label, table, x) -> str | None:
    """A call on a sequence of max_len positions (L = max_len) is right."""
    full = torch.linspace(-1, 1, table.numel()).view(1, *table.shape)
    c = Call(label, full, params="forward")
    try:
        out = c.run(obj)
    except CheckFailure:
        return None
    want = (full + table).double()
    right = isinstance(out, torch.Tensor) and out.shape == want.shape
    return (
        "positions-wrong-rows" if right and torch.allclose(out.double(), want, atol=1e-5) else None
    )


# ---- apply_rope ----------------------------------------------------------------------------------


def rope_angles_tiled(x, positions=None, base=10000.0):
    """Interleaved pairs with the angles tiled the half-split way, [θ0..θ(d/2-1), θ0..] (cat or
    .repeat(1, 2)) instead of [θ0, θ0, θ1, θ1, ...]: the two features of a pair turn by
    different angles."""
    from autograder.kit.expected import frequencies

    x = x.double()
    n, d = x.shape[-2], x.shape[-1]
    p = torch.arange(n) if positions is None else positions
    angle = (p.double()[:, None] * frequencies(d, base)).repeat(1, 2)  # (P, D)
    partner = torch.stack([-x[..., 1::2], x[..., 0::2]], -1).flatten(-2)
    return x * angle.cos() + partner * angle.sin()


def rope_positions_int16(x, positions=None, base=10000.0):
    """Positions stored as int16: past 32767 they wrap around to negative numbers."""
    from autograder.kit.expected import rope

    if positions is None:
        positions = torch.arange(x.shape[-2])
    return rope(x, positions.to(torch.int16).long(), base)


def unrotated_pairs(w: torch.Tensor) -> bool:
    """Given each pair's angle per position ``w`` (pairs 0..d/2-1), whether pair 0 turns and
    some later pairs do not turn at all: only part of the features rotated."""
    still = w.abs() < 1e-9
    return bool(not still[0] and still[1:].any())


def sinusoid_half(n, d, dtype, each: bool, trig: bool = False):
    """The angles p·w rounded to ``dtype``: each factor first (``each``), or their product; and
    with ``trig`` their sin and cos taken in ``dtype`` too (the whole table made in it)."""
    p, w = torch.arange(n, dtype=torch.float64)[:, None], frequencies(d, 10000.0)
    angle = p.to(dtype) * w.to(dtype) if each else (p * w).to(dtype)
    angle = angle if trig else angle.double()
    return torch.stack([angle.sin(), angle.cos()], -1).flatten(-2).double()


def rope_angles_in(dtype):
    """RoPE with the angles p·θ computed in ``dtype`` (float16, bfloat16) whatever x's dtype."""
    from autograder.kit.expected import rope

    return lambda x, positions=None, base=10000.0: rope(x, positions, base, angles_in=dtype)


def sinusoid_at(positions, d):
    """The table at the given (float) positions instead of 0, 1, ..., max_len - 1."""
    angle = positions.double()[:, None] * frequencies(d, 10000.0)
    return torch.stack([angle.sin(), angle.cos()], -1).flatten(-2)


def is_sinusoid_table(out, shape) -> bool:
    """Whether every even column is sin(p·w) and every odd column cos(p·w), for some frequency w
    per column: x[p+1] + x[p-1] = 2 cos(w) x[p], with x[0] = 0 (sin) or 1 (cos). Of ``shape``:
    a table too short or too long is no frequency slip."""
    if not isinstance(out, torch.Tensor) or out.shape != shape or out.shape[0] < 4:
        return False
    x = out.double()
    if not (
        torch.allclose(x[0, 0::2], torch.zeros(1, dtype=x.dtype), atol=1e-4)
        and torch.allclose(x[0, 1::2], torch.ones(1, dtype=x.dtype), atol=1e-4)
    ):
        return False
    mid, sides = x[1:-1], x[2:] + x[:-2]
    c = (sides * mid).sum(0) / (mid * mid).sum(0).clamp_min(1e-12)  # 2 cos(w), per column
    return bool(((sides - c * mid).abs() < 1e-3).all())

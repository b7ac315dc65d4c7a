"""Comparing the learner's values with the expected ones, within the tolerance of their dtype.

Expected values are float64 (or bool); a learner's output of dtype D matches when it is close
within ``TOLERANCE[D]``. On a mismatch the failure shows where it first differs and names the
first mutant (``autograder.kit.calling``) that reproduces the learner's value exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from autograder.i18n import N_, _, cells, ljust, ngettext, noun
from autograder.kit.calling import Call, Mutants, fail, to_float64
from autograder.kit.text import fmt_dtype, fmt_num, fmt_row, fmt_shape, fmt_type, ranges

TOLERANCE = {  # (atol, rtol) for comparing a learner's output of this dtype with a float64 value
    torch.float64: (1e-6, 1e-6),
    torch.float32: (1e-4, 1e-4),
    torch.float16: (2e-2, 2e-2),
    torch.bfloat16: (6e-2, 6e-2),
}


# The names of what a check compares (``what=``), translated where a message shows them.
WHATS = (
    N_("the output"),
    N_("the weights"),
    N_("the mask"),
    N_("the logits"),
    N_("their output"),
    N_("a tuple (q, k, v)"),
)
PLURAL = {"the weights", "the logits"}  # "the weights are wrong", "the output is wrong"


def _agreeing(singular: str, plural: str, what: str) -> str:
    """The message whose verb agrees with ``what`` (both translated: alike in Chinese)."""
    return _(plural) if what in PLURAL else _(singular)


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    return TOLERANCE.get(dtype, (0.0, 0.0))


def close_mask(yours: torch.Tensor, want: torch.Tensor, tol: tuple[float, float] | None = None):
    """Elementwise: does ``yours`` match ``want`` (NaN matches NaN, inf matches the same inf)?"""
    if yours.dtype == torch.bool or want.dtype == torch.bool or not yours.is_floating_point():
        return yours.to(want.dtype) == want if want.dtype == torch.bool else yours.double() == want
    atol, rtol = tol or tolerance(yours.dtype)
    return torch.isclose(yours.double(), want.double(), atol=atol, rtol=rtol, equal_nan=True)


def same(yours: Any, want: Any, tol: tuple[float, float] | None = None) -> bool:
    """Whether a learner's value matches an expected (or mutant) value: tensors by shape and
    values, tuples/lists elementwise, numbers within tolerance."""
    if isinstance(want, torch.Tensor):
        if not isinstance(yours, torch.Tensor) or tuple(yours.shape) != tuple(want.shape):
            return False
        if yours.device.type == "meta" or want.device.type == "meta":
            return True
        if (yours.dtype == torch.bool) != (want.dtype == torch.bool):
            return False
        return bool(close_mask(yours, want, tol).all())
    if isinstance(want, (tuple, list)):
        return (
            isinstance(yours, (tuple, list))
            and len(yours) == len(want)
            and all(same(y, w, tol) for y, w in zip(yours, want, strict=True))
        )
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        if isinstance(yours, bool) or not isinstance(yours, (int, float)):
            return False
        return math.isclose(yours, want, rel_tol=1e-6, abs_tol=1e-9)
    return yours == want


def dtype_of(x: Any) -> torch.dtype | None:
    if isinstance(x, torch.Tensor):
        return x.dtype
    if isinstance(x, (tuple, list)):
        for y in x:
            d = dtype_of(y)
            if d is not None and d.is_floating_point:
                return d
    return None


def diagnose(yours: Any, c: Call | None, mutants: Mutants, *, tol=None) -> str | None:
    """The first mistake whose mutant, run on the same inputs, produces exactly ``yours``."""
    if c is None:
        return None
    dtype = dtype_of(yours)
    tol = tol or (tolerance(dtype) if dtype is not None else None)
    for mistake, fn in mutants:
        try:
            value = fn(*to_float64(c.args), **to_float64(c.kwargs))
        except Exception:  # noqa: BLE001 - a mutant that can't run on these inputs explains nothing
            continue
        if same(yours, value, tol):
            return mistake
    return None


def excerpt(yours: torch.Tensor, want: torch.Tensor, tol=None, label: str = "output") -> str:
    """Two or three lines showing where ``yours`` first differs from ``want``: the element, then
    its row, both indexed from ``label`` (``output[0, 2]``, then ``output[0]``)."""
    bad = ~close_mask(yours, want, tol)
    if not bad.any():
        return ""
    index = [int(i) for i in bad.nonzero()[0]]
    if yours.dim() == 0:
        return _("yours {yours}, expected {expected}").format(
            yours=fmt_num(float(yours)), expected=fmt_num(float(want))
        )
    row = tuple(index[:-1])
    y_row, w_row = yours[row].double().tolist(), want[row].double().tolist()
    start = max(0, min(index[-1] - 2, len(y_row) - 6))
    where = f"{label}[{', '.join(map(str, row))}]" if row else label
    dots = "…" if start else ""
    yours_word, expected_word = _("yours"), _("expected")
    pad = max(cells(yours_word), cells(expected_word))
    return (
        _("first difference at {element}:").format(element=f"{label}[{', '.join(map(str, index))}]")
        + f"\n  {where} {ljust(yours_word, pad)} {dots}{fmt_row(y_row[start:])}\n"
        f"  {' ' * len(where)} {ljust(expected_word, pad)} {dots}{fmt_row(w_row[start:])}"
    )


def expect_tensor(
    out: Any,
    c: Call,
    *,
    shape: Sequence[int],
    dtype: torch.dtype | None = None,
    device: str | None = None,
    what: str = "the output",
    mutants: Mutants = (),
    whole: Any = None,
) -> torch.Tensor:
    """Check the type, shape, dtype and device of a returned tensor; returns it.

    ``whole`` is the learner's whole return value when ``out`` is one part of it (mutants are
    compared against the whole)."""
    subject = out if whole is None else whole
    shown = noun(what)
    if not isinstance(out, torch.Tensor):
        raise fail(
            _("{call} returned {type} for {what}; expected a tensor of shape {shape}.").format(
                call=c, type=fmt_type(out), what=shown, shape=fmt_shape(shape)
            ),
            diagnose(subject, c, mutants),
        )
    if device == "meta" and out.device.type != "meta":
        inputs = any(isinstance(a, torch.Tensor) for a in c.args)
        where = _("the inputs' device") if inputs else _("the device it is given")
        raise fail(
            _(
                "{call} returned {what} on '{device}'; it must be on {where} ('meta' here: "
                "a stand-in device the check uses to catch tensors made on the CPU)."
            ).format(call=c, what=shown, device=out.device.type, where=where),
            "created-on-cpu",
        )
    if tuple(out.shape) != tuple(shape):
        raise fail(
            _agreeing(
                N_("{call}: {what} has shape {shape}, expected {expected}."),
                N_("{call}: {what} have shape {shape}, expected {expected}."),
                what,
            ).format(call=c, what=shown, shape=fmt_shape(out.shape), expected=fmt_shape(shape)),
            # Only size-1 dimensions missing: a squeeze, whatever mutant the same shape fits
            # (the weights of a batch of one flattened to (B*h, Lq, Lk) are also squeezed).
            _squeezed(out.shape, shape) or diagnose(subject, c, mutants),
        )
    if dtype is not None and out.dtype != dtype:
        # Named by its dtype before its values: a float64 softmax reproduces the values of
        # several mutants, none of which is what went wrong.
        raise fail(
            _agreeing(
                N_("{call}: {what} has dtype {dtype}, expected {expected}."),
                N_("{call}: {what} have dtype {dtype}, expected {expected}."),
                what,
            ).format(call=c, what=shown, dtype=fmt_dtype(out.dtype), expected=fmt_dtype(dtype)),
            _dtype_mistake(out, dtype, mutants),
        )
    return out


def _squeezed(yours: Sequence[int], want: Sequence[int]) -> str | None:
    """ "squeezed-output" when ``yours`` is ``want`` with some of its size-1 dimensions dropped."""
    kept = [d for d in want if d != 1]
    if len(yours) < len(want) and [d for d in yours if d != 1] == kept:
        return "squeezed-output"
    return None


def _never(*args: Any, **kwargs: Any) -> Any:
    raise ValueError("a mistake recognised by its dtype, not by its values")


# For a half-precision call: a float32 output is named as a promotion.
DTYPE_PROMOTED: Mutants = (("dtype-promoted", _never),)


def _dtype_mistake(out: torch.Tensor, dtype: torch.dtype, mutants: Mutants) -> str:
    """A half-precision input that came back as float32 is named as a promotion where the
    exercise knows that mistake; any other dtype mismatch is [wrong-dtype]."""
    promoted = dtype in (torch.float16, torch.bfloat16) and out.dtype == torch.float32
    if promoted and "dtype-promoted" in {m for m, _fn in mutants}:
        return "dtype-promoted"
    return "wrong-dtype"


def expect_close(
    out: Any,
    want: torch.Tensor,
    c: Call,
    *,
    what: str = "the output",
    dtype: torch.dtype | None = None,
    mutants: Mutants = (),
    tol: tuple[float, float] | None = None,
    whole: Any = None,
) -> torch.Tensor:
    """Check a returned tensor against the expected values ``want`` (float64 or bool); ``dtype``
    is the dtype the output must have (None: not checked)."""
    expect_tensor(out, c, shape=want.shape, dtype=dtype, what=what, mutants=mutants, whole=whole)
    if want.device.type == "meta" or out.device.type == "meta":
        return out
    ok = close_mask(out, want, tol)
    if bool(ok.all()):
        return out
    mistake = diagnose(out if whole is None else whole, c, mutants, tol=tol)
    nan = out.is_floating_point() and bool(out.isnan().any()) and not bool(want.isnan().any())
    if nan:
        head = _agreeing(N_("{call}: {what} contains NaN"), N_("{call}: {what} contain NaN"), what)
    else:
        head = _agreeing(N_("{call}: {what} is wrong"), N_("{call}: {what} are wrong"), what)
    raise fail(
        _("{head}; {excerpt}").format(
            head=head.format(call=c, what=noun(what)),
            excerpt=excerpt(out, want, tol, what.removeprefix("the ")),
        ),
        mistake,
    )


def expect_meta(out: Any, c: Call, shape: Sequence[int], dtype: torch.dtype, what="the output"):
    """Inputs were on the meta device: the output must be a meta tensor of this shape and dtype."""
    return expect_tensor(out, c, shape=shape, dtype=dtype, device="meta", what=what)


def expect_tuple(out: Any, c: Call, n: int, what: str) -> tuple:
    if not isinstance(out, (tuple, list)) or len(out) != n:
        raise fail(
            _("{call} returned {type}; expected {what}.").format(
                call=c, type=fmt_type(out), what=_(what)
            )
        )
    return tuple(out)


def expect_attention(out, want, c, dtype, mutants):
    """(output, weights) against the expected pair."""
    out = expect_tuple(out, c, 2, N_("a tuple (output, weights)"))
    expect_close(out[0], want[0], c, what="the output", dtype=dtype, mutants=mutants, whole=out)
    expect_close(out[1], want[1], c, what="the weights", dtype=dtype, mutants=mutants, whole=out)


# ---- masks -------------------------------------------------------------------------------------


def mask_row_message(yours: torch.Tensor, want: torch.Tensor, rows: str = "query") -> str:
    """The first row that differs, in words: 'query 0 may attend to key 0, yours allows keys
    0-3' (``rows="query"``) or 'sequence 1 has real tokens at positions 0-3, yours marks
    positions 0-4'."""
    n = want.shape[-1]
    r = int((yours != want).reshape(-1, n).any(-1).nonzero()[0])
    y_row, w_row = yours.reshape(-1, n)[r], want.reshape(-1, n)[r]
    y, w = y_row.nonzero().flatten().tolist(), w_row.nonzero().flatten().tolist()
    if rows == "sequence":
        return _("sequence {row} has real tokens at {expected}, yours marks {yours}").format(
            row=r, expected=_indices(w, "position"), yours=_indices(y, "position")
        )
    return _("query {row} may attend to {expected}, yours allows {yours}").format(
        row=r, expected=_indices(w, "key"), yours=_indices(y, "key")
    )


def _indices(indices: list[int], what: str) -> str:
    """'key 0', 'keys 0-2, 5', 'no key' (``what``: "key" or "position")."""
    if not indices:
        return _("no key") if what == "key" else _("no position")
    if what == "key":
        said = ngettext("key {indices}", "keys {indices}", len(indices))
    else:
        said = ngettext("position {indices}", "positions {indices}", len(indices))
    return said.format(indices=ranges(indices))


def expect_mask(out: Any, want: torch.Tensor, c: Call, *, mutants: Mutants = (), rows="query"):
    """Check a bool mask: dtype first (naming additive / 0-1 masks), then its pattern."""
    expect_tensor(out, c, shape=want.shape, what="the mask", mutants=mutants)
    if out.dtype != torch.bool:
        mistake = "mask-not-bool"
        if out.device.type != "meta" and out.is_floating_point() and bool(out.isneginf().any()):
            mistake = "additive-float-mask"
        raise fail(
            _("{call}: the mask has dtype {dtype}, expected bool.").format(
                call=c, dtype=fmt_dtype(out.dtype)
            ),
            mistake,
        )
    if want.device.type == "meta" or bool((out == want).all()):
        return out
    detail = (
        mask_row_message(out, want, rows) if out.dim() == 2 else excerpt(out, want, None, "mask")
    )
    raise fail(_("{call}: {detail}.").format(call=c, detail=detail), diagnose(out, c, mutants))

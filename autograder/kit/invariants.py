"""Invariants: what must not change when an input changes that the output must not depend on."""

from __future__ import annotations

from typing import Any

import torch

from autograder.i18n import _
from autograder.kit.calling import Call, Mutants, fail
from autograder.kit.compare import diagnose, dtype_of, tolerance
from autograder.kit.text import fmt_num


def expect_unchanged(
    c: Call,
    yours: Any,
    other: Any,
    index: Any,
    why: str,
    *,
    mutants: Mutants = (),
    what="the output",
) -> None:
    """An invariant: ``other`` (the output for changed inputs) must equal ``yours`` at ``index``.

    ``yours`` / ``other`` are outputs or (output, ...) tuples; ``why`` says what was changed
    and why it must not matter, e.g. "changing keys 3-4, which the mask hides from every query,".
    """
    a = yours[0] if isinstance(yours, (tuple, list)) else yours
    b = other[0] if isinstance(other, (tuple, list)) else other
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
        return  # the value checks report wrong types and shapes
    a, b = a[index].double(), b[index].double()
    atol, rtol = tolerance(yours_dtype(yours))
    if torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True):
        return
    diff = float((a - b).abs().nan_to_num(nan=float("inf")).max())
    raise fail(
        _("{call}: {why} changed {what} by up to {diff}.").format(
            call=c, why=why, what=_(what), diff=fmt_num(diff)
        ),
        diagnose(yours, c, mutants),
    )


def yours_dtype(value: Any) -> torch.dtype:
    return dtype_of(value) or torch.float32

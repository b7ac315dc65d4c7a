"""Lesson 07: probes that name a wrong ``LearnedPositionalEmbedding`` by what it looked up."""

from __future__ import annotations

import torch

from autograder.kit import Call
from autograder.kit.exercise import CheckFailure


def rows_or_scale(obj, label, table, x, out) -> str | None:
    """Which rows of the table the positions 0..L-1 got (the output for x = 0 is those rows):
    shifted, reversed or right-aligned rows name a mistake of the positions; the right rows with
    x scaled (x * sqrt(d_model) + positions) name that."""
    n = x.shape[1]
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

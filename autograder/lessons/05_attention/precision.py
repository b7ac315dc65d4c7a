"""Lesson 05: float64 inputs are computed in float64 (not cast to float32 and back), on the
kit's cancelling inputs (``autograder.kit.precision``), for an (output, weights) pair."""

from __future__ import annotations

import torch

from autograder.kit import Call, expect_attention
from autograder.kit.expected import ref_attention64
from autograder.kit.precision import cancelling_inputs, in_float32

FLOAT32_MUTANTS = (("computed-in-float32", in_float32(ref_attention64)),)


def check_float64_kept(name, target, make_call=None) -> None:
    """float64 in: the output agrees with float64 arithmetic, not with the inputs rounded to
    float32 (``make_call(q, k, v)`` builds the Call; SDPA's by default)."""
    q, k, v = cancelling_inputs()
    c = Call(name, q, k, v) if make_call is None else make_call(q, k, v)
    out = c.run(target, mutants=FLOAT32_MUTANTS)
    expect_attention(out, ref_attention64(q, k, v), c, torch.float64, FLOAT32_MUTANTS)

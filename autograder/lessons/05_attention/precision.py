"""Lesson 05: float64 inputs are computed in float64 (not cast to float32 and back).

float64's tolerance (1e-6) is loose enough for real code that takes only the softmax in float32
(Hugging Face's ``softmax(..., dtype=torch.float32).to(query.dtype)``), so a whole computation in
float32 passes it on ordinary inputs. These inputs tell the two apart: each key's score is the
difference of two products near 1e8 that differ by about 1, and the inputs' 1e-8 parts, which
float32 rounds away, decide which key wins; the softmax itself sees scores near 1 either way.
"""

from __future__ import annotations

import torch

from autograder.kit import Call, expect_attention
from autograder.kit.expected import ref_attention64

from .sdpa_mutants import computed_in_float32

FLOAT32_MUTANTS = (("computed-in-float32", computed_in_float32),)


def cancelling_inputs():
    """float64 q, k, v whose scores are 1e8 · (1 + e) - 1e8 = 1e8 · e for e of order 1e-8."""
    q = torch.tensor([[1e8, -1e8], [2e8, -2e8]], dtype=torch.float64)
    eps = torch.tensor([0.0, 1e-8, 2e-8, -1e-8], dtype=torch.float64)
    k = torch.stack([1.0 + eps, torch.ones(4, dtype=torch.float64)], -1)  # (4, 2)
    v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0]], dtype=torch.float64)
    return q, k, v


def check_float64_kept(name, target, make_call=None) -> None:
    """float64 in: the output agrees with float64 arithmetic, not with the inputs rounded to
    float32 (``make_call(q, k, v)`` builds the Call; SDPA's by default)."""
    q, k, v = cancelling_inputs()
    c = Call(name, q, k, v) if make_call is None else make_call(q, k, v)
    out = c.run(target, mutants=FLOAT32_MUTANTS)
    expect_attention(out, ref_attention64(q, k, v), c, torch.float64, FLOAT32_MUTANTS)

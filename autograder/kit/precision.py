"""float64 inputs are computed in float64 (not cast to float32 and back): lessons 05 and 09.

float64's tolerance (1e-6) is loose enough for real code that takes only the softmax in float32
(Hugging Face's ``softmax(..., dtype=torch.float32).to(query.dtype)``), so a whole computation in
float32 passes it on ordinary inputs. These inputs tell the two apart: each key's score is the
difference of two products near 1e8 that differ by about 1, and the inputs' 1e-8 parts, which
float32 rounds away, decide which key wins; the softmax itself sees scores near 1 either way.
"""

from __future__ import annotations

import torch

from autograder.kit.calling import Call
from autograder.kit.compare import expect_close


def cancelling_inputs():
    """float64 q, k, v whose scores are 1e8 · (1 + e) - 1e8 = 1e8 · e for e of order 1e-8."""
    q = torch.tensor([[1e8, -1e8], [2e8, -2e8]], dtype=torch.float64)
    eps = torch.tensor([0.0, 1e-8, 2e-8, -1e-8], dtype=torch.float64)
    k = torch.stack([1.0 + eps, torch.ones(4, dtype=torch.float64)], -1)  # (4, 2)
    v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0]], dtype=torch.float64)
    return q, k, v


def in_float32(reference):
    """The mutant of ``reference(q, k, v, ...)``: the same on q, k, v rounded to float32."""
    return lambda q, k, v, *a, **kw: reference(q.float(), k.float(), v.float(), *a, **kw)


def expect_output_float64_kept(target, c: Call, want: torch.Tensor, reference) -> None:
    """``c`` on cancelling inputs returns an output (only) that agrees with ``want`` (float64
    arithmetic), not with ``reference`` run on the inputs rounded to float32."""
    mutants = (("computed-in-float32", in_float32(reference)),)
    expect_close(c.run(target, mutants=mutants), want, c, dtype=torch.float64, mutants=mutants)

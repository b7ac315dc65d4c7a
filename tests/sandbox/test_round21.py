"""The red team's break in round 21 (notes: rt21), no tampering: a forward that returns
``x.new_zeros((1,) * 65000)`` (one value, a 260 KB reply) was compared with torch.allclose, whose
set-up costs the square of the dims before it refuses more than 64: 30 s of the judge's CPU per
exercise, uncounted by the learner's limits. A returned tensor of more than MAX_DIMS dims is now
the learner's mistake, said before any comparison."""

from __future__ import annotations

import time

import pytest
import torch
from lesson_files import BASE

from autograder.core.judge import judge_source
from autograder.sandbox.host.replies import MAX_DIMS, UnusualTensor, from_plain
from tests.sandbox.marks import NEEDS_BWRAP

MANY_DIMS = """

class SelfAttention(SelfAttention):
    def forward(self, x, mask=None):
        return x.new_zeros((1,) * 60000)
"""


def test_a_tensor_of_more_dims_than_any_exercise_returns_is_the_learners_mistake():
    assert from_plain(torch.zeros((1,) * MAX_DIMS), {"cpu"}).dim() == MAX_DIMS
    for dims in (MAX_DIMS + 1, 60000):
        with pytest.raises(UnusualTensor, match=f"a tensor of {dims} dims"):
            from_plain([torch.zeros((1,) * dims)], {"cpu"})


@NEEDS_BWRAP
def test_a_forward_returning_sixty_thousand_dims_fails_at_once():
    start = time.process_time()
    [r] = judge_source(BASE + MANY_DIMS, ["SelfAttention"])
    assert time.process_time() - start < 10  # the judge's own CPU: 25 s before
    assert not r.passed and "60000 dims" in r.message, r

"""The red team's breaks in round 17 (notes: rt17) not covered elsewhere (the bounded value
descriptions and unreadable answers are in tests/check/test_questions.py).

A reply tensor of a dtype no exercise returns (quantized, float8, bits8) reached the checks,
whose comparisons raised on it: the learner's mistake was reported as "the grader failed". The
sandbox now sends such a tensor as an opaque value that says its dtype (the exercise fails on
it, as on any other wrong type), and the judge refuses one that comes in a reply all the same.
"""

from __future__ import annotations

import pytest
import torch
from lesson_files import BASE

from autograder.sandbox.host.replies import PLAIN_DTYPES, UnusualTensor, from_plain
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round3 import attacker_then_classmate, hostile


@pytest.mark.parametrize(
    "tensor",
    [
        torch.quantize_per_tensor(torch.rand(3), 0.1, 0, torch.quint8),
        torch.zeros(4, dtype=torch.uint8).view(torch.bits8),
        torch.zeros(4).to(torch.float8_e4m3fn),
    ],
    ids=["quantized", "bits8", "float8"],
)
def test_a_reply_tensor_of_an_unusual_dtype_is_the_learners_mistake(tensor):
    with pytest.raises(UnusualTensor, match="return an ordinary tensor"):
        from_plain([tensor], {"cpu"})


@pytest.mark.parametrize("dtype", sorted(PLAIN_DTYPES, key=str))
def test_reply_tensors_of_every_plain_dtype_are_kept(dtype):
    t = torch.zeros(2, 3, dtype=dtype)
    assert from_plain(t, {"cpu"}) is t


@NEEDS_BWRAP
@pytest.mark.parametrize(
    "exercise, dtype",
    [("softmax", "quint8"), ("causal_mask", "bits8"), ("causal_mask", "float8_e5m2")],
)
def test_a_submission_returning_unusual_dtypes_fails_its_exercise_saying_why(exercise, dtype):
    attack = BASE + "\n\n" + hostile("unusual_dtypes.py", dtype=dtype)
    a, b = attacker_then_classmate(attack, exercise, BASE)
    assert not a.passed, a
    assert "the grader failed" not in a.message, a
    assert f"Tensor(torch.{dtype})" in a.message and a.mistake != "tampering", a
    assert b.passed, b

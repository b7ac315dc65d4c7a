"""A blank exercise (``raise NotImplementedError()``, nbgrader's stub) is 'not written yet'; an
exercise that is written but calls a blank earlier one (lesson 05's tools cell left empty) is told
which one, and counts as attempted (trial 39: 'scaled_dot_product_attention 还没有写' of code that
was written)."""

from autograder.core.judge import judge_source

BLANK_SOFTMAX = "def softmax(x, dim=-1):\n    raise NotImplementedError()\n"
SDPA = """
import math


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
"""
BLANK = """
import torch.nn as nn


def scaled_dot_product_attention(q, k, v, mask=None):
    raise NotImplementedError()


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        raise NotImplementedError()
"""


def test_a_written_exercise_calling_a_blank_earlier_one_names_it():
    [result] = judge_source(BLANK_SOFTMAX + SDPA, only=["scaled_dot_product_attention"])
    assert not result.passed and result.attempted
    assert "calls softmax, which is not written yet" in result.message


def test_a_blank_exercise_is_not_written_yet_whatever_raises_inside_it():
    results = {r.exercise: r for r in judge_source(BLANK)}
    for name in ("scaled_dot_product_attention", "SelfAttention"):
        assert not results[name].attempted
        assert results[name].message.startswith(f"{name} is not written yet"), results[name]

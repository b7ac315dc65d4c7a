"""Lesson 05: a probe run after ``SelfAttention``'s check failed without naming a mistake."""

from __future__ import annotations

from functools import wraps

from autograder.kit import (
    Call,
    construct,
    expect_attention,
    generator,
    linear_state,
    load_weights,
    randn,
)
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import self_attention


def _right_when_d_v_is_d_k(sub) -> bool:
    """``SelfAttention(6, 4, 4)``, whose value width is its query width, is right."""
    g = generator(124)
    obj, label = construct(sub, "SelfAttention", 6, 4, 4)
    state = {}
    for n in "qkv":
        state |= linear_state(g, f"w_{n}", 6, 4, bias=False)
    load_weights(obj, state, label)
    obj.eval()
    x = randn(g, 2, 3, 6)
    c = Call(label, x, params="forward")
    try:
        expect_attention(c.run(obj), self_attention(state, x), c, x.dtype, ())
    except CheckFailure:
        return False
    return True


def naming_output_shaped_like_q(check):
    """``check``; where it fails (a crash, or a wrong output) with no mistake named, while the
    module with d_v = d_k is right, the output was reshaped like q (``.view(B, L, d_k)``)."""

    @wraps(check)
    def named(sub) -> None:
        try:
            check(sub)
        except CheckFailure as failure:
            if failure.mistake is None:
                try:
                    right = _right_when_d_v_is_d_k(sub)
                except CheckFailure:
                    right = False
                if right:
                    failure.mistake = "output-shaped-like-q"
            raise

    return named

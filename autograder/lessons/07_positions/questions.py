"""Lesson 07 (positions): the conceptual questions at the end of the notebook.

Answers are computed with the course's reference functions, so a question and its answer cannot
drift apart; known slips (the squared norm, ``i`` for ``2i``, a ratio for an offset...) are named.
"""

from __future__ import annotations

import math

import torch

from autograder.questions import Question
from course_lib.positions import (
    LearnedPositionalEmbedding,
    apply_rope,
    sinusoidal_positional_encoding,
)


def _pe_norm(d_model: int) -> float:
    pe = sinusoidal_positional_encoding(50, d_model, dtype=torch.float64)  # (P, D)
    norms = pe.norm(dim=-1)  # (P,): the same for every position
    return float(norms[37])


def _learned_params(max_len: int, d_model: int) -> int:
    module = LearnedPositionalEmbedding(max_len, d_model)  # on the CPU: meta's init loads sympy
    return sum(p.numel() for p in module.parameters())


def _rope_angle(p: int, i: int, d: int, exponent: float = 2.0) -> float:
    """The angle pair i is turned by at position p (exponent 1: the i-for-2i slip)."""
    if exponent != 2.0:
        return p * 10000.0 ** (-exponent * i / d)
    x = torch.zeros(1, d, dtype=torch.float64)
    x[0, 2 * i] = (
        1.0  # the unit vector along feature 2i: its rotation gives (cos, sin) of the angle
    )
    out = apply_rope(x, positions=torch.tensor([p]))  # (1, D)
    return math.atan2(float(out[0, 2 * i + 1]), float(out[0, 2 * i]))


def _same_offset_choice() -> str:
    """Which pair of positions (for q, k) gives the same RoPE score as (5, 2)."""
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 8, generator=g, dtype=torch.float64)

    def score(pq: int, pk: int) -> float:
        rotated = apply_rope(torch.stack([q, k]), positions=torch.tensor([pq, pk]))  # (2, D)
        return float(rotated[0] @ rotated[1])

    choices = {"a": (10, 4), "b": (8, 5), "c": (2, 5)}
    same = [c for c, (pq, pk) in choices.items() if math.isclose(score(pq, pk), score(5, 2))]
    assert len(same) == 1, same
    return same[0]


QUESTIONS = [
    Question(
        "07_1",
        (
            "What is the Euclidean norm of a row PE[p] of sinusoidal_positional_encoding(max_len,"
            " 64), for any position p? Give a number (a float)."
        ),
        "number",
        _pe_norm(64),
        hint="Each of the 32 (sin, cos) pairs of a row adds sin² + cos² to the squared norm.",
        why="32 pairs, each with sin² + cos² = 1: the squared norm is 32 at every position, so the "
        "norm is √32 ≈ 5.66. Every position's vector has the same length: bounded values.",
        known_wrong={
            32.0: "32 is the squared norm; take its square root",
            8.0: "that is √64: only 32 pairs, each of squared norm 1",
            1.0: "each pair has norm 1, but there are 32 pairs",
        },
    ),
    Question(
        "07_2",
        (
            "How many learnable parameters does LearnedPositionalEmbedding(max_len=512, "
            "d_model=768) have? Give an int."
        ),
        "int",
        _learned_params(512, 768),
        hint="The module holds one nn.Embedding(max_len, d_model): a table of one vector per "
        "position.",
        why="One 768-dimensional vector for each of 512 positions: 512 × 768 = 393,216, and none "
        "for position 512 or later.",
        known_wrong={
            512: "that is the number of positions; each one has a whole d_model-vector",
            768: "that is one position's vector; there are 512 of them",
            0: "that is the sinusoidal encoding, which has no parameters; this one is learned",
        },
    ),
    Question(
        "07_3",
        (
            "apply_rope with d = 64 and base 10000: by what angle, in radians, is pair i = 1 "
            "(features 2 and 3) of the token at position p = 3 rotated? Give a number (a float)."
        ),
        "number",
        _rope_angle(3, 1, 64),
        hint="θ = p · base^(-2i/d), with i the pair index (not the feature index).",
        why="3 · 10000^(-2/64) ≈ 2.2497 rad.",
        known_wrong={
            round(_rope_angle(3, 1, 64, exponent=1.0), 4): "that is base^(-i/d): the exponent "
            "uses 2i, with i the pair index [frequency-exponent-i]",
            round(_rope_angle(3, 1, 64, exponent=4.0), 4): "that doubles 2i: with i already the "
            "feature index 2, the exponent is -2/64 [frequency-exponent-i]",
            3.0: "that is the angle of pair 0; pair 1 turns more slowly",
            round(math.degrees(_rope_angle(3, 1, 64)), 2): "that is in degrees; the question "
            "asks for radians, as torch.cos and torch.sin take them",
            round(_rope_angle(1, 1, 64), 4): "that is the angle at position 1; the token is at "
            "p = 3, and the angle grows with p",
        },
    ),
    Question(
        "07_4",
        (
            "With RoPE, a query at position 5 and a key at position 2 have score s. For the same "
            "q and k, which positions (query, key) give the same score s? Answer with a letter, "
            "as a string. (a) (10, 4) (b) (8, 5) (c) (2, 5)"
        ),
        "choice",
        _same_offset_choice(),
        choices={"a": "(10, 4)", "b": "(8, 5)", "c": "(2, 5)"},
        hint="Rotations compose: R(p)ᵀ R(s) = R(s - p), for a query at p and a key at s. What "
        "stays the same between (5, 2) and the right answer?",
        why="The score depends only on the offset s - p, the key's position minus the query's: "
        "5 - 8 = 2 - 5 = -3. Far away it is the same: (105, 102) gives s too.",
        known_wrong={
            "a": "that doubles both positions (a ratio), so the offset s - p changes from -3 to -6",
            "c": "that swaps query and key: the offset s - p becomes +3 instead of -3, and R(3) is "
            "not R(-3)",
        },
    ),
    Question(
        "07_5",
        (
            "A checkpoint was trained with half-split RoPE (GPT-NeoX, Hugging Face LLaMA's "
            "rotate_half). You load its weights unchanged into a model whose attention uses this "
            "course's interleaved apply_rope. What happens? Answer with a letter, as a string. "
            "(a) different attention scores, unless the output features of W_Q and W_K are "
            "permuted (b) the same outputs: both layouts rotate their pairs by the same angles at "
            "every position (c) a shape error at load time: the half-split layout stores W_Q and "
            "W_K in other shapes"
        ),
        "choice",
        "a",
        choices={
            "a": "different attention scores, unless W_Q's and W_K's output features are permuted",
            "b": "the same outputs: the same angles",
            "c": "a shape error at load time",
        },
        hint="The two layouts pair up different features. Which features of a trained q form a "
        "rotating pair is baked into W_Q.",
        why="They are the same rotation up to a permutation of the features, so the weights must "
        "be permuted; nothing fails loudly, the scores are just wrong.",
        known_wrong={
            "b": "the angles are the same, but the pairs are not: (2i, 2i+1) here, (i, i + d/2) in "
            "rotate_half; with the same weights the wrong features turn together, so the scores "
            "differ",
            "c": "RoPE has no parameters and both layouts keep every shape: W_Q and W_K are the "
            "same matrices; nothing fails loudly, which is what makes it dangerous",
        },
    ),
]

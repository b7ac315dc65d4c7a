"""Lesson 02's conceptual questions; each prompt is the notebook's question, as plain text."""

from __future__ import annotations

import math

import torch

from autograder.questions import Question, shape_of


def _qkt(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.transpose(-2, -1)  # (..., T, K) @ (..., K, S) -> (..., T, S)


QUESTIONS = [
    Question(
        "02_1",
        (
            "q has shape (3, 8) and k has shape (5, 8). What is the shape of attention_scores(q, "
            "k)? Answer with a tuple, such as (2, 3)."
        ),
        "shape",
        shape_of(_qkt, (3, 8), (5, 8)),
        hint="One row per query, one column per key.",
        why="Rows are queries (Lq = 3), columns are keys (Lk = 5).",
        known_wrong={
            (5, 3): "that is K Q^T: rows must be queries, columns keys",
            (8, 8): "that is Q^T K, a (d_k, d_k) matrix; the scores compare tokens, not features",
            (3, 8): "that is q's shape; scores have one column per key",
        },
    ),
    Question(
        "02_2",
        (
            "q has shape (2, 4, 10, 64) and k has shape (2, 4, 12, 64) (batch, heads, tokens, "
            "d_k). What is the shape of the scores? Answer with a tuple, such as (2, 3)."
        ),
        "shape",
        shape_of(_qkt, (2, 4, 10, 64), (2, 4, 12, 64)),
        hint="Leading dims are batch dims and pass through; the last two follow (Lq, d_k) @ "
        "(d_k, Lk).",
        why="Batch and head dims pass through; each (batch, head) gets its own (Lq, Lk) matrix.",
        known_wrong={
            (2, 4, 12, 10): "rows are queries (10), columns keys (12)",
            (2, 4, 64, 64): "that is q^T k; transpose only k's last two dims",
            (10, 12): "the batch and head dims do not disappear",
        },
    ),
    Question(
        "02_3",
        (
            "q = [1, 2, 0] and k = [3, -1, 4]. What is their (unscaled) attention score? Do it by"
            " hand. Answer with a number."
        ),
        "number",
        float(torch.dot(torch.tensor([1.0, 2.0, 0.0]), torch.tensor([3.0, -1.0, 4.0]))),
        hint="Multiply the vectors entry by entry, then add up the three products.",
        why="1*3 + 2*(-1) + 0*4 = 1: the vectors agree on the first feature, disagree on the "
        "second, and the third does not count because q is 0 there.",
        known_wrong={
            1 / math.sqrt(3): "that is the score scaled by 1/sqrt(d_k); the question asks for "
            "the unscaled one",
            5.0: "that drops the minus sign of k's second entry: 2 * (-1) is -2",
        },
    ),
]

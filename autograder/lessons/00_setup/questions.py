"""Lesson 00's conceptual questions; each prompt is the notebook's question, as plain text."""

from __future__ import annotations

import torch

from autograder.questions import Question, shape_of

QUESTIONS = [
    Question(
        "00_1",
        (
            "X has shape (4, 3) and W has shape (3, 2). What is the shape of X @ W? Work it out "
            "before you run anything. Answer with a tuple, such as (2, 3)."
        ),
        "shape",
        shape_of(torch.matmul, (4, 3), (3, 2)),
        hint="A matrix product (n, m) @ (m, p) keeps the outer sizes and consumes the inner one.",
        why="The inner sizes (3 and 3) must agree and disappear; the outer ones remain.",
        known_wrong={
            (3, 2): "that is the shape of W itself",
            (2, 4): "that is the transpose of the answer: rows come from X",
            (4, 3): "that is the shape of X itself",
        },
    ),
    Question(
        "00_2",
        (
            "A batch of 8 sentences, each 5 tokens long, each token a 16-dimensional vector: what"
            " is the shape of the batch? Answer with a tuple, such as (2, 3)."
        ),
        "shape",
        (8, 5, 16),
        hint="Batch first, then sequence, then features: (B, L, d).",
        why="Batch first, then the sequence, then the features: (B, L, d).",
        known_wrong={
            (5, 8, 16): "that is sequence-first, the default of nn.MultiheadAttention without "
            "batch_first=True; this course puts the batch first",
            (8, 16, 5): "the feature dimension comes last",
        },
    ),
]

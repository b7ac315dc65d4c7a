"""Lesson 04's conceptual questions; each prompt is the notebook's question, as plain text."""

from __future__ import annotations

import torch

from autograder.questions import Question, shape_of

QUESTIONS = [
    Question(
        "04_1",
        "How many entries of causal_mask(6) are True? Answer with an integer.",
        "int",
        int(torch.ones(6, 6, dtype=torch.bool).tril().sum()),
        hint="Query i may attend to keys 0..i: that is i + 1 keys. Add up over i = 0..5.",
        why="1 + 2 + ... + 6 = 21: the lower triangle, diagonal included.",
        known_wrong={
            15: "that leaves out the diagonal: every token may attend to itself",
            36: "that is every entry; the upper triangle (the future) is False",
        },
    ),
    Question(
        "04_2",
        (
            "Your mask follows this course's convention (True = may attend). What do you pass as "
            "nn.MultiheadAttention's attn_mask to get the same attention? Answer with a letter, "
            "as a string. (a) mask (b) ~mask (c) mask.float()"
        ),
        "choice",
        "b",
        hint="Look up what True means for nn.MultiheadAttention's attn_mask.",
        why="nn.MultiheadAttention's bool masks mean True = blocked, the opposite polarity: ~mask.",
        choices={"a": "mask", "b": "~mask", "c": "mask.float()"},
        known_wrong={
            "a": "nn.MultiheadAttention reads True as *blocked*: every query would attend exactly "
            "where you meant to block",
            "c": "a float mask is *added* to the scores: 1.0 and 0.0 would block nothing",
        },
    ),
    Question(
        "04_3",
        "What is the largest finite value a float16 can hold? Answer with a number.",
        "number",
        float(torch.finfo(torch.float16).max),
        hint="torch.finfo(torch.float16) knows.",
        why="65504: so -1e9 does not fit in float16, while -inf does (and softmax maps it to 0).",
        known_wrong={
            65535: "that is the largest uint16, 2^16 - 1; a float spends bits on its exponent",
            65536: "that is 2^16, which float16 rounds to inf",
            65500: "close, but the largest float16 is an exact number: torch.finfo gives it",
            float(torch.finfo(torch.float32).max): "that is float32's largest value",
        },
        rel_tol=0.0,
        abs_tol=0.5,
    ),
    Question(
        "04_4",
        (
            "scores has shape (3, 5, 5) (batch, queries, keys). You combine causal_mask(5) with "
            "padding_mask(lengths, 5)[:, None, :] using &. What is the shape of the combined "
            "mask? Answer with a tuple, such as (2, 3)."
        ),
        "shape",
        shape_of(lambda causal, padding: causal.bool() & padding.bool(), (5, 5), (3, 1, 5)),
        hint="Broadcasting aligns shapes from the right and stretches size-1 dims: (5, 5) with "
        "(3, 1, 5).",
        why="(5, 5) & (3, 1, 5) broadcasts to (3, 5, 5): one mask per sequence, per query.",
        known_wrong={
            (3, 5): "the padding mask alone is (3, 5); with [:, None, :] it is (3, 1, 5), and "
            "combined with the (5, 5) causal mask it broadcasts further",
            (5, 5): "the batch dim comes from the padding mask, one mask per sequence",
        },
    ),
]

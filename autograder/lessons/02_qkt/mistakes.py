"""Lesson 02's known mistakes (QK^T) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

MISTAKES = (
    Mistake(
        "forgot-transpose-k",
        ("attention_scores", "scaled_attention_scores", "scaled_dot_product_attention"),
        "K is not transposed: q @ k instead of q @ k^T",
        "Scores pair every query with every key: q @ k.transpose(-2, -1), shape (..., Lq, Lk).",
    ),
    Mistake(
        "transpose-batch-dims",
        ("attention_scores", "scaled_attention_scores", "scaled_dot_product_attention"),
        "The transpose only works for 2-D (or 3-D) inputs: k.T, transpose(0, 1), transpose(1, 2)",
        "Swap the last two dimensions, whatever comes before them: k.transpose(-2, -1).",
    ),
    Mistake(
        "scores-transposed",
        ("attention_scores", "scaled_attention_scores"),
        "The product the wrong way round: k @ q^T",
        "Rows are queries and columns keys: q @ k.transpose(-2, -1), shape (..., Lq, Lk).",
    ),
    Mistake(
        "scaled-too-early",
        ("attention_scores",),
        "attention_scores is scaled",
        "attention_scores is the plain q @ k^T; dividing by sqrt(d_k) (or by anything) is "
        "lesson 03's scaled_attention_scores.",
    ),
    Mistake(
        "transpose-by-view",
        ("attention_scores",),
        "k reshaped with view or reshape instead of transposed",
        "k.view(..., d_k, Lk) keeps the memory order, so it mixes rows; swap the last two axes "
        "with k.transpose(-2, -1).",
    ),
)

"""Lesson 02: attention scores, unscaled ``q @ k^T``.

Lq queries, Lk keys, K d_k.
"""

from __future__ import annotations

from autograder.kit import (
    check_scores_like,
    exercise,
    scores,
    transpose_mutants,
)

SCORE_MUTANTS = transpose_mutants()

# (q shape, k shape), smallest first: square (so q @ k runs and is just wrong), non-square 2-D,
# then leading batch dimensions (where k.T and transpose(0, 1) break).
SCORE_CASES = (
    ((4, 4), (4, 4)),
    ((2, 5), (3, 5)),
    ((2, 3, 4), (2, 5, 4)),
    ((2, 2, 3, 4), (2, 2, 5, 4)),
)


@exercise("attention_scores")
def check_attention_scores(sub) -> None:
    check_scores_like(sub, "attention_scores", scores, SCORE_MUTANTS, SCORE_CASES)

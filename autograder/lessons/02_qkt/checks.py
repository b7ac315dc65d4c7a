"""Lesson 02: attention scores, unscaled ``q @ k^T``.

Lq queries, Lk keys, K d_k.
"""

from __future__ import annotations

from autograder.kit import (  # noqa: I001
    Call,
    check_scores_like,
    exercise,
    generator,
    randn,
    scores,
    transpose_mutants,
)
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    wide_call,
    with_rules,
)

SCORE_MUTANTS = (
    *transpose_mutants(),
    ("scaled-too-early", lambda q, k: scores(q, k) * q.shape[-1] ** -0.5),
    ("scaled-too-early", lambda q, k: scores(q, k) / q.shape[-1]),
    (
        "transpose-by-view",
        lambda q, k: q.double() @ k.double().reshape(*k.shape[:-2], k.shape[-1], k.shape[-2]),
    ),
)

# (q shape, k shape), smallest first: 2-D with Lq, Lk and d_k all different (so every transpose
# mistake shows in the shape), then leading batch dimensions (where k.T and transpose(0, 1)
# break).
SCORE_CASES = (
    ((3, 4), (5, 4)),
    ((2, 5), (3, 5)),
    ((2, 3, 4), (2, 5, 4)),
    ((2, 2, 3, 4), (2, 2, 5, 4)),
)


@exercise("attention_scores")
def check_attention_scores(sub) -> None:
    check_scores_like(sub, "attention_scores", scores, SCORE_MUTANTS, SCORE_CASES)


def _rules_attention_scores(sub) -> None:
    g = generator(103)
    c = Call("attention_scores", randn(g, 1, 1, 1, 4), randn(g, 1, 1, 1, 4))
    expect_contract_rules(sub, c, (1, 1, 1, 1), output=None)
    expect_true_gradients(sub, wide_call("attention_scores", g, (2, 3, 4), (2, 5, 4)))


check_attention_scores = with_rules(check_attention_scores, _rules_attention_scores)

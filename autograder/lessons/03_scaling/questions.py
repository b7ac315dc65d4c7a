"""Lesson 03's conceptual questions; each prompt is the notebook's question, as plain text."""

from __future__ import annotations

import math

from autograder.questions import Question

QUESTIONS = [
    Question(
        "03_1",
        (
            "q and k have 64 entries each, all independent N(0, 1). What is the variance of q · "
            "k? Answer with a number."
        ),
        "number",
        64.0,
        hint="q · k is a sum of d_k independent products; each product q_i k_i has variance 1.",
        why="Variances of independent terms add up: 64 terms of variance 1.",
        known_wrong={8.0: "8 is the standard deviation, sqrt(64); the variance is its square"},
        rel_tol=1e-6,
    ),
    Question(
        "03_2",
        "And the variance of q · k / sqrt(64)? Answer with a number.",
        "number",
        1.0,
        hint="Dividing a random variable by c divides its variance by c squared.",
        why="Var(X / c) = Var(X) / c^2 = 64 / 64 = 1, whatever d_k is.",
        known_wrong={8.0: "dividing by c divides the variance by c squared, not by c"},
        rel_tol=1e-6,
    ),
    Question(
        "03_3",
        (
            "What is the largest possible entropy, in nats, of one query's attention weights over"
            " 8 keys? (A number; math.log is fine.)"
        ),
        "number",
        math.log(8),
        hint="Entropy is largest when the weights are spread evenly: p_j = 1/8 for every key.",
        why="Uniform weights give -sum(1/8 log 1/8) = log 8 ≈ 2.079 nats.",
        known_wrong={
            3.0: "that is log base 2 (bits); the course measures entropy in nats (natural log)",
            0.0: "0 is the smallest entropy, for one-hot weights",
        },
    ),
    Question(
        "03_4",
        (
            "Why divide the scores by sqrt(d_k) rather than by d_k? Answer with a letter, as a "
            'string ("a", "b" or "c"). (a) a square root costs less than a division by d_k, and '
            "both give the same attention weights once the softmax has run; (b) it brings the "
            "variance of the scores back to 1, while dividing by d_k would shrink it to 1/d_k and "
            "make attention nearly uniform; (c) it keeps every score between -1 and 1, like a "
            "cosine similarity, so that the exponentials in the softmax can never overflow."
        ),
        "choice",
        "b",
        hint="Work out Var(q · k / c) for c = sqrt(d_k) and for c = d_k.",
        why="Var(q · k / sqrt(d_k)) = 1 for every d_k; dividing by d_k over-corrects.",
        choices={
            "a": "cheaper, same weights",
            "b": "variance back to 1 (d_k would over-shrink it)",
            "c": "scores between -1 and 1",
        },
        known_wrong={
            "a": "the scale is a constant computed once, and the softmax of scores divided by "
            "different constants gives different weights",
            "c": "the scaled scores have variance 1, not a bound: a score of 3 or -4 is common, "
            "and the softmax's max-subtraction, not the scale, is what prevents overflow",
        },
    ),
]

"""Lesson 05's conceptual questions: single-head attention."""

from __future__ import annotations

import torch

from autograder.questions import Question, shape_of


def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(q k^T) v, for its shape."""
    return (q @ k.transpose(-2, -1)).softmax(-1) @ v  # (..., Lq, Lk) @ (..., Lk, d_v)


QUESTIONS = [
    Question(
        "05_1",
        "q has shape (2, 7, 16), k has shape (2, 9, 16) and v has shape (2, 9, 32). What is the "
        "shape of the output of scaled_dot_product_attention(q, k, v)? Answer with a tuple.",
        "shape",
        shape_of(_attention, (2, 7, 16), (2, 9, 16), (2, 9, 32)),
        hint="One output row per query, each a weighted average of the values: (..., Lq, d_v).",
        why="The weights are (2, 7, 9); times v (2, 9, 32) gives one d_v-vector per query.",
        known_wrong={
            (2, 7, 9): "that is the shape of the weights, (..., Lq, Lk); the output is weights @ v",
            (2, 9, 32): "one output per *query*, not per key: the length is Lq = 7",
            (2, 7, 16): "the output is an average of the values, so its last dim is d_v, not d_k",
        },
    ),
    Question(
        "05_2",
        "In a sequence of 100 tokens, information from token 1 must reach token 100. How many "
        "steps (hand-overs from one position to another) does that take in one self-attention "
        "layer? Answer with an int.",
        "int",
        1,
        hint="In attention every query scores every key directly; nothing is passed along.",
        why="Any two positions are one step apart: path length O(1), against O(n) for an RNN.",
        known_wrong={
            99: "99 hand-overs is a recurrent network's path; attention connects them directly",
            100: "that counts tokens; in attention token 100's query scores token 1's key directly",
        },
    ),
    Question(
        "05_3",
        "You shuffle the tokens of a sentence before a SelfAttention layer (no positional "
        "information anywhere). What happens to its output? Answer with a letter, as a string. "
        "(a) nothing: the output is the same tensor, as attention without positions sees a bag "
        "of words (b) each token's output changes, because its query now meets the keys in a "
        "different order (c) each token keeps the output it had before, so the output's rows "
        "move as the tokens did",
        "choice",
        "c",
        hint="Run the permutation demo: compare attention(x[p]) with attention(x)[p].",
        why="Attention without a mask is permutation-equivariant: without positions, a sentence "
        "is a bag of words to it. (A causal mask would break this: what a token sees would "
        "depend on the order.)",
        choices={
            "a": "the same output",
            "b": "a different output",
            "c": "the output shuffled the same way",
        },
        known_wrong={
            "a": "a bag of words means no token's output depends on the order, but the output has "
            "one row per token: the rows move with their tokens, so the tensor is shuffled",
            "b": "a query's weights are a softmax over the set of keys, and a weighted sum does "
            "not depend on the order of its terms: each token's output stays the same, it just "
            "moves with its token",
        },
    ),
    Question(
        "05_4",
        "additive is a float mask of 0 (may attend) and -inf (blocked). Which expression gives "
        "the same mask as a bool mask, True = may attend? Answer with a letter, as a string. "
        "(a) additive.bool() (b) additive == 0 (c) ~(additive == 0)",
        "choice",
        "b",
        hint="Work out what .bool() gives for 0.0 and for -inf.",
        why="The allowed entries are exactly the zeros, so additive == 0 is True where allowed.",
        choices={"a": "additive.bool()", "b": "additive == 0", "c": "~(additive == 0)"},
        known_wrong={
            "a": ".bool() is True at every non-zero entry, the -inf ones: the blocked keys, so "
            "the polarity flips [additive-mask-as-bool]",
            "c": "that is True at the -inf entries: the blocked keys, the opposite polarity",
        },
    ),
    Question(
        "05_5",
        "A model's query and key projections end up equal, W_Q = W_K. What do its attention maps "
        "look like? Answer with a letter, as a string. (a) diagonal-dominant: most tokens put "
        "the largest weight of their row on themselves (b) uniform: every weight close to 1/L, "
        "as tied projections make all scores alike (c) symmetric: token i gives j the weight "
        "that j gives i, since the scores are symmetric",
        "choice",
        "a",
        hint="With W_Q = W_K the score s_ij is q_i · q_j; compare it with s_ii = |q_i|^2.",
        why="By Cauchy-Schwarz q_i · q_j <= |q_i| |q_j|, so a token's score with itself tends to "
        "be the largest of its row.",
        choices={"a": "diagonal-dominant", "b": "uniform", "c": "symmetric"},
        known_wrong={
            "b": "a popular claim, and false: the explorer shows W_K = W_Q gives a diagonal map; "
            "uniform maps come from scores that are too small",
            "c": "the scores are symmetric, s_ij = s_ji, but softmax divides each row by its own "
            "sum of exponentials, so i's weight on j equals j's weight on i only when rows i and j "
            "have the same sum",
        },
    ),
]

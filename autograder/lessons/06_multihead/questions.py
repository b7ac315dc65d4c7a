"""Lesson 06's conceptual questions: head sizes, parameter counts, split shapes, mask shapes and
what Vaswani et al. measured. Answers are computed (shapes on the meta device, counts by building
the module on the meta device) wherever they can be."""

from __future__ import annotations

import torch
from torch import nn

from autograder.questions import Question


def _mha_parameters(d_model: int, num_heads: int, bias: bool) -> int:
    """Counted on torch's own module: in_proj (3·M·M, + 3·M) and out_proj (M·M, + M)."""
    mha = nn.MultiheadAttention(d_model, num_heads, bias=bias, device="meta")
    return sum(p.numel() for p in mha.parameters())


def _split_shape(shape: tuple[int, int, int], h: int) -> tuple[int, ...]:
    b, n, d = shape
    x = torch.empty(shape, device="meta")
    return tuple(x.view(b, n, h, d // h).transpose(1, 2).shape)


PARAMS = _mha_parameters(512, 8, bias=True)
PARAMS_NO_BIAS = _mha_parameters(512, 8, bias=False)

QUESTIONS = [
    Question(
        "06_1",
        (
            "A MultiHeadAttention has d_\\text{model} = 768 and 12 heads (BERT-base's sizes). What"
            " is d_\\text{head}, the size of each head's queries, keys and values? (An int.)"
        ),
        "int",
        768 // 12,
        hint="The heads split d_model between them: d_k = d_v = d_model / h.",
        why="768 / 12 = 64: each head works on its own 64-feature slice of the projections.",
        known_wrong={
            768: "that is d_model itself: heads split the features, they do not each get all of "
            "them",
            768 * 12: "that multiplies by the number of heads; heads split d_model",
            12: "that is the number of heads",
        },
    ),
    Question(
        "06_2",
        (
            "How many learnable parameters does MultiHeadAttention(d_model=512, num_heads=8, "
            "bias=True) hold? (An int.)"
        ),
        "int",
        PARAMS,
        hint="Count the four d_model x d_model projections (w_q, w_k, w_v, w_o) and their "
        "biases; the number of heads does not enter.",
        why="4 · 512² + 4 · 512 = 1,050,624, the same for 1, 8 or 64 heads.",
        known_wrong={
            PARAMS_NO_BIAS: "that leaves out the four bias vectors of d_model numbers each",
            8 * PARAMS: "that multiplies by the number of heads: heads split the projections, "
            "they do not add parameters",
            8 * PARAMS_NO_BIAS: "that multiplies by the number of heads and leaves out the biases",
            3 * (512 * 512 + 512): "that leaves out the output projection w_o",
            4 * 512 * 64 + 4 * 64: "that is one head's share of the four projections",
        },
    ),
    Question(
        "06_3",
        (
            "x has shape (2, 10, 512) (batch, tokens, d_\\text{model}). What is the shape of "
            "split_heads(x, 8)? (A tuple.)"
        ),
        "shape",
        _split_shape((2, 10, 512), 8),
        hint="Split the last dim into (heads, d_head), then move the head dim in front of the "
        "tokens.",
        why="(B, L, d_model) -> (B, L, h, d_head) -> transpose -> (B, h, L, d_head).",
        known_wrong={
            (2, 10, 8, 64): "that is the shape before the transpose: heads must come before the "
            "tokens, so that attention runs over tokens for each head",
            (2, 8, 10, 512): "that copies d_model into every head; heads split it into d_head "
            "= d_model / h features each",
            (16, 10, 64): "the batch and head dims stay separate in this course's layout",
        },
    ),
    Question(
        "06_4",
        (
            "The scores of a multi-head layer have shape (B, h, L, L) = (4, 8, 10, 10), and pad ="
            " padding_mask(lengths, 10) has shape (4, 10). Which mask do you pass? Answer with a "
            "letter, as a string. (a) pad[:, None, None, :] (b) pad.unsqueeze(1) (c) "
            "pad.unsqueeze(1).unsqueeze(-1)"
        ),
        "choice",
        "a",
        hint="Line the shapes up from the right: the batch dim of the mask must meet the batch "
        "dim of the scores, not the head dim, and its L must meet the keys, the last dim.",
        why="(B, 1, 1, L) broadcasts to (B, h, L, L): one mask per sequence, the same for every "
        "head and every query.",
        choices={
            "a": "pad[:, None, None, :]",
            "b": "pad.unsqueeze(1)",
            "c": "pad.unsqueeze(1).unsqueeze(-1)",
        },
        known_wrong={
            "b": "that is (B, 1, L) = (4, 1, 10): from the right, its B meets the scores' h "
            "(4 against 8), an error here; when B equals h it runs and silently gives head b "
            "the padding of sequence b",
            "c": "that is (B, 1, L, 1) = (4, 1, 10, 1): it runs, but it masks the queries, not "
            "the keys: real tokens still attend to the padding, and the padding's own rows are "
            "blocked whole",
        },
    ),
    Question(
        "06_5",
        (
            "What did Vaswani et al. (2017) measure in Table 3, rows (A), when they varied the "
            "number of heads at constant computation? Answer with a letter, as a string. (a) "
            "quality grew with every head added: 32 heads did best, some 15–20% better than one "
            "head; (b) the number of heads made no difference: 1, 8 and 32 heads all scored the "
            "same BLEU; (c) one head was 0.9 BLEU worse than the best setting, and 32 heads were "
            "worse than 8 or 16."
        ),
        "choice",
        "c",
        hint="Read the table in the section 'How many heads?': compare h = 1, 8, 16 and 32.",
        why="BLEU 24.9 with 1 head, 25.8 with 8 and 16, 25.4 with 32: heads help, up to a point; "
        "there is no '15-20%' in the paper.",
        choices={
            "a": "every extra head helps; 32 heads 15-20% better",
            "b": "the number of heads made no difference",
            "c": "one head 0.9 BLEU worse than the best; 32 heads worse than 8 or 16",
        },
        known_wrong={
            "a": "that number circulates without a source; the paper's BLEU scores differ by "
            "less than 1 point, and 32 heads (25.4) scored below 8 and 16 (25.8)",
            "b": "one head scored 24.9 BLEU against 25.8 for the best setting (8 or 16 heads), "
            "and 32 heads 25.4",
        },
    ),
]

"""Lesson 01's conceptual questions; each prompt is the notebook's question, as plain text."""

from __future__ import annotations

import torch

from autograder.questions import Question, shape_of


def _params_qkv(d_model: int, d_k: int, d_v: int) -> int:
    module = torch.nn.Module()
    module.w_q = torch.nn.Linear(d_model, d_k, bias=False, device="meta")
    module.w_k = torch.nn.Linear(d_model, d_k, bias=False, device="meta")
    module.w_v = torch.nn.Linear(d_model, d_v, bias=False, device="meta")
    return sum(p.numel() for p in module.parameters())


QUESTIONS = [
    Question(
        "01_1",
        (
            "x has shape (2, 7, 16) (batch, tokens, d_model) and W_Q has shape (16, 8). What is "
            "the shape of Q = x @ W_Q? Answer with a tuple, such as (2, 3)."
        ),
        "shape",
        shape_of(torch.matmul, (2, 7, 16), (16, 8)),
        hint="The batch and token dims pass through untouched; only the last dim is projected.",
        why="A projection acts on the last dim only, token by token: "
        "(B, L, d_model) -> (B, L, d_k).",
        known_wrong={
            (2, 7, 16): "that is the shape of x: the projection changes the last dim to d_k",
            (7, 8): "the batch dim is still there: matmul broadcasts W_Q over it",
        },
    ),
    Question(
        "01_2",
        (
            "How many learnable parameters does QKVProjection(d_model=512, d_k=64, d_v=64) have? "
            "(An integer; you may compute it.)"
        ),
        "int",
        _params_qkv(512, 64, 64),
        hint="Three nn.Linear layers without bias; each holds one (out, in) weight matrix.",
        why="Three matrices of 512 x 64 = 32,768 numbers each; no biases.",
        known_wrong={
            _params_qkv(512, 64, 64) + 3 * 64: "that counts biases, but the layers have bias=False",
            512 * 64: "that is one of the three projections; count W_Q, W_K and W_V",
        },
    ),
    Question(
        "01_3",
        (
            "What is the shape of QKVProjection(16, 8, 4).w_v.weight? Try to answer without "
            "building it. Answer with a tuple, such as (2, 3)."
        ),
        "shape",
        tuple(torch.nn.Linear(16, 4, bias=False, device="meta").weight.shape),
        hint="nn.Linear(in_features, out_features) stores its weight as (out_features, "
        "in_features) and computes x @ weight.T.",
        why="nn.Linear stores the transpose, (out, in): W_V in project_qkv is w_v.weight.T.",
        known_wrong={
            (16, 4): "that is W_V as project_qkv uses it, (d_model, d_v); nn.Linear stores the "
            "transpose",
            (8, 16): "that is w_q or w_k; w_v projects to d_v = 4",
        },
    ),
]

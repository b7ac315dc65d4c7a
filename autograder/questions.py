"""Conceptual questions at the end of each lesson, with answers a machine can check.

A question's id is ``"<lesson>_<n>"`` (``"02_1"``) and the learner answers it in a notebook cell
as ``answer_02_1 = ...``, then runs::

    check_answer("02_1", answer_02_1)               # prints a verdict, a hint when it is wrong
    check_answer("02_1", answer_02_1, strict=True)  # the graded cell: raises when it is wrong

Answers are computed where they can be (shapes by running the operation on the ``meta`` device,
counts from the formula), so a question and its answer cannot drift apart. Comparison is
forgiving about form, never about substance: ``(3, 5)``, ``[3, 5]`` and ``torch.Size([3, 5])``
are the same shape; ``"b"``, ``"B"`` and ``"(b)"`` the same choice; numbers match within a
tolerance. A wrong answer that is a known slip (the transposed shape, ``d_k`` for
``sqrt(d_k)``...) gets a message that names it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = ["QUESTIONS", "Question", "Verdict", "WrongAnswer", "check_answer", "grade_answer"]

KINDS = ("shape", "int", "number", "choice", "bool")


@dataclass(frozen=True)
class Question:
    id: str  # "02_1": lesson 02, question 1; the learner's variable is answer_02_1
    prompt: str  # one or two sentences, as in the notebook
    kind: str  # one of KINDS: how an answer is read and compared
    answer: Any  # the canonical answer, in the normal form of its kind
    hint: str  # shown when the answer is wrong: where to look, never the answer
    why: str = ""  # shown when the answer is right: the idea in one sentence
    points: float = 1.0
    choices: Mapping[str, str] = field(default_factory=dict)  # kind "choice": letter -> text
    known_wrong: Mapping[Any, str] = field(default_factory=dict)  # normal form -> what it means
    rel_tol: float = 1e-3  # kind "number"
    abs_tol: float = 1e-6

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"question {self.id}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind == "choice" and self.answer not in self.choices:
            raise ValueError(f"question {self.id}: answer {self.answer!r} is not a choice")


@dataclass(frozen=True)
class Verdict:
    question: str
    correct: bool
    message: str  # one or two short sentences, for a learner


class WrongAnswer(Exception):
    """Raised by ``check_answer(..., strict=True)``; shown as one line in a notebook."""

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"WrongAnswer: {self}"]


class _Unreadable(Exception):
    """The answer is not of the kind the question asks for (message says what was expected)."""


# -- computing answers -------------------------------------------------------------------------


def _shape(fn: Callable[..., torch.Tensor], *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``fn`` returns for inputs of these shapes, computed without any memory."""
    tensors = [torch.empty(s, device="meta") for s in shapes]
    return tuple(fn(*tensors).shape)


def _qkt(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.transpose(-2, -1)  # (..., T, K) @ (..., K, S) -> (..., T, S)


def _params_qkv(d_model: int, d_k: int, d_v: int) -> int:
    module = torch.nn.Module()
    module.w_q = torch.nn.Linear(d_model, d_k, bias=False, device="meta")
    module.w_k = torch.nn.Linear(d_model, d_k, bias=False, device="meta")
    module.w_v = torch.nn.Linear(d_model, d_v, bias=False, device="meta")
    return sum(p.numel() for p in module.parameters())


QUESTIONS: dict[str, Question] = {}


def _add(q: Question) -> None:
    if q.id in QUESTIONS:
        raise ValueError(f"question {q.id} is defined twice")
    QUESTIONS[q.id] = q


# -- 00 setup ----------------------------------------------------------------------------------
_add(
    Question(
        "00_1",
        "X has shape (4, 3) and W has shape (3, 2). What is the shape of X @ W?",
        "shape",
        _shape(torch.matmul, (4, 3), (3, 2)),
        hint="A matrix product (n, m) @ (m, p) keeps the outer sizes and consumes the inner one.",
        why="The inner sizes (3 and 3) must agree and disappear; the outer ones remain.",
        known_wrong={
            (3, 2): "that is the shape of W itself",
            (2, 4): "that is the transpose of the answer: rows come from X",
            (4, 3): "that is the shape of X itself",
        },
    )
)
_add(
    Question(
        "00_2",
        "A batch of 8 sentences, each 5 tokens long, each token a 16-dimensional vector: "
        "in this course's batch-first convention, what is the shape of the batch?",
        "shape",
        (8, 5, 16),
        hint="Batch first, then sequence, then features: (B, L, d).",
        why="Batch first, then the sequence, then the features: (B, L, d).",
        known_wrong={
            (5, 8, 16): "that is sequence-first, the default of nn.MultiheadAttention without "
            "batch_first=True; this course puts the batch first",
            (8, 16, 5): "the feature dimension comes last",
        },
    )
)

# -- 01 projections ----------------------------------------------------------------------------
_add(
    Question(
        "01_1",
        "x has shape (2, 7, 16) (batch, tokens, d_model) and W_Q has shape (16, 8). "
        "What is the shape of Q = x @ W_Q?",
        "shape",
        _shape(torch.matmul, (2, 7, 16), (16, 8)),
        hint="The batch and token dims pass through untouched; only the last dim is projected.",
        why="A projection acts on the last dim only, token by token: "
        "(B, L, d_model) -> (B, L, d_k).",
        known_wrong={
            (2, 7, 16): "that is the shape of x: the projection changes the last dim to d_k",
            (7, 8): "the batch dim is still there: matmul broadcasts W_Q over it",
        },
    )
)
_add(
    Question(
        "01_2",
        "How many learnable parameters does QKVProjection(d_model=512, d_k=64, d_v=64) have?",
        "int",
        _params_qkv(512, 64, 64),
        hint="Three nn.Linear layers without bias; each holds one (out, in) weight matrix.",
        why="Three matrices of 512 x 64 = 32,768 numbers each; no biases.",
        known_wrong={
            _params_qkv(512, 64, 64) + 3 * 64: "that counts biases, but the layers have bias=False",
            512 * 64: "that is one of the three projections; count W_Q, W_K and W_V",
        },
    )
)
_add(
    Question(
        "01_3",
        "What is the shape of QKVProjection(16, 8, 4).w_v.weight?",
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
    )
)

# -- 02 QK^T -----------------------------------------------------------------------------------
_add(
    Question(
        "02_1",
        "q has shape (3, 8) and k has shape (5, 8). What is the shape of attention_scores(q, k)?",
        "shape",
        _shape(_qkt, (3, 8), (5, 8)),
        hint="One row per query, one column per key.",
        why="Rows are queries (Lq = 3), columns are keys (Lk = 5).",
        known_wrong={
            (5, 3): "that is K Q^T: rows must be queries, columns keys",
            (8, 8): "that is Q^T K, a (d_k, d_k) matrix; the scores compare tokens, not features",
            (3, 8): "that is q's shape; scores have one column per key",
        },
    )
)
_add(
    Question(
        "02_2",
        "q has shape (2, 4, 10, 64) and k has shape (2, 4, 12, 64) (batch, heads, tokens, d_k). "
        "What is the shape of the scores?",
        "shape",
        _shape(_qkt, (2, 4, 10, 64), (2, 4, 12, 64)),
        hint="Leading dims are batch dims and pass through; the last two follow (Lq, d_k) @ "
        "(d_k, Lk).",
        why="Batch and head dims pass through; each (batch, head) gets its own (Lq, Lk) matrix.",
        known_wrong={
            (2, 4, 12, 10): "rows are queries (10), columns keys (12)",
            (2, 4, 64, 64): "that is q^T k; transpose only k's last two dims",
            (10, 12): "the batch and head dims do not disappear",
        },
    )
)
_add(
    Question(
        "02_3",
        "q = [1, 2, 0] and k = [3, -1, 4]. What is their attention score (unscaled)?",
        "number",
        float(torch.dot(torch.tensor([1.0, 2.0, 0.0]), torch.tensor([3.0, -1.0, 4.0]))),
        hint="Multiply the vectors entry by entry, then add up: 1*3 + 2*(-1) + 0*4.",
        why="1*3 + 2*(-1) + 0*4 = 1: the vectors agree on the first feature, disagree on the "
        "second, and the third does not count because q is 0 there.",
    )
)

# -- 03 scaling --------------------------------------------------------------------------------
_add(
    Question(
        "03_1",
        "q and k have 64 entries each, all independent N(0, 1). What is the variance of q · k?",
        "number",
        64.0,
        hint="q · k is a sum of d_k independent products; each product q_i k_i has variance 1.",
        why="Variances of independent terms add up: 64 terms of variance 1.",
        known_wrong={8.0: "8 is the standard deviation, sqrt(64); the variance is its square"},
        rel_tol=1e-6,
    )
)
_add(
    Question(
        "03_2",
        "And the variance of q · k / sqrt(64)?",
        "number",
        1.0,
        hint="Dividing a random variable by c divides its variance by c squared.",
        why="Var(X / c) = Var(X) / c^2 = 64 / 64 = 1, whatever d_k is.",
        known_wrong={8.0: "dividing by c divides the variance by c squared, not by c"},
        rel_tol=1e-6,
    )
)
_add(
    Question(
        "03_3",
        "What is the largest possible entropy (in nats) of one query's attention weights over 8 "
        "keys? (A number; math.log is fine.)",
        "number",
        math.log(8),
        hint="Entropy is largest when the weights are spread evenly: p_j = 1/8 for every key.",
        why="Uniform weights give -sum(1/8 log 1/8) = log 8 ≈ 2.079 nats.",
        known_wrong={
            3.0: "that is log base 2 (bits); the course measures entropy in nats (natural log)",
            0.0: "0 is the smallest entropy, for one-hot weights",
        },
    )
)
_add(
    Question(
        "03_4",
        "Why divide the scores by sqrt(d_k) rather than by d_k? "
        "(a) sqrt is cheaper to compute; (b) it brings the variance of the scores back to 1, "
        "while dividing by d_k would shrink it to 1/d_k and make attention nearly uniform; "
        "(c) it makes the scores positive.",
        "choice",
        "b",
        hint="Work out Var(q · k / c) for c = sqrt(d_k) and for c = d_k.",
        why="Var(q · k / sqrt(d_k)) = 1 for every d_k; dividing by d_k over-corrects.",
        choices={
            "a": "sqrt is cheaper to compute",
            "b": "variance back to 1 (d_k would over-shrink it)",
            "c": "it makes the scores positive",
        },
        known_wrong={
            "a": "it is a constant computed once, so its cost does not matter",
            "c": "dividing by a positive constant never changes a sign",
        },
    )
)

# -- 04 softmax and masks ----------------------------------------------------------------------
_add(
    Question(
        "04_1",
        "How many entries of causal_mask(6) are True?",
        "int",
        int(torch.ones(6, 6, dtype=torch.bool).tril().sum()),
        hint="Query i may attend to keys 0..i: that is i + 1 keys. Add up over i = 0..5.",
        why="1 + 2 + ... + 6 = 21: the lower triangle, diagonal included.",
        known_wrong={
            15: "that leaves out the diagonal: every token may attend to itself",
            36: "that is every entry; the upper triangle (the future) is False",
        },
    )
)
_add(
    Question(
        "04_2",
        "Your mask follows this course's convention (True = may attend). What do you pass as "
        "nn.MultiheadAttention's attn_mask to get the same attention? "
        "(a) mask; (b) ~mask; (c) mask.float()",
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
    )
)
_add(
    Question(
        "04_3",
        "What is the largest finite value a float16 can hold?",
        "number",
        float(torch.finfo(torch.float16).max),
        hint="torch.finfo(torch.float16) knows.",
        why="65504: so -1e9 does not fit in float16, while -inf does (and softmax maps it to 0).",
    )
)
_add(
    Question(
        "04_4",
        "scores has shape (3, 5, 5) (batch, queries, keys). You combine causal_mask(5) with "
        "padding_mask(lengths, 5)[:, None, :] using &. What is the shape of the combined mask?",
        "shape",
        tuple(torch.broadcast_shapes((5, 5), (3, 1, 5))),
        hint="Broadcasting aligns shapes from the right and stretches size-1 dims: (5, 5) with "
        "(3, 1, 5).",
        why="(5, 5) & (3, 1, 5) broadcasts to (3, 5, 5): one mask per sequence, per query.",
        known_wrong={
            (3, 5): "the padding mask alone is (3, 5); with [:, None, :] it is (3, 1, 5), and "
            "combined with the (5, 5) causal mask it broadcasts further",
            (5, 5): "the batch dim comes from the padding mask, one mask per sequence",
        },
    )
)


# Questions of the lessons whose folder in autograder/lessons/ has a questions.py.
def _add_lesson_questions() -> None:
    from autograder import lessons

    for lesson in lessons.lessons():
        module = lessons.load(lesson, "questions")
        for q in getattr(module, "QUESTIONS", ()):
            _add(q)


_add_lesson_questions()


# -- reading and judging answers ---------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _as_number(value: Any) -> float:
    if isinstance(value, bool):
        raise _Unreadable("a number, not True/False")
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.item())
    if isinstance(value, numbers.Real):
        return float(value)
    if hasattr(value, "item") and hasattr(value, "dtype"):  # a NumPy scalar
        return float(value.item())
    if isinstance(value, str):
        try:
            return float(value.strip().replace("_", ""))
        except ValueError:
            pass
    raise _Unreadable("a number, such as 12 or 0.5")


def _normalise(question: Question, value: Any):
    """The answer in the normal form of the question's kind, or ``_Unreadable``."""
    kind = question.kind
    if kind == "shape":
        if isinstance(value, torch.Tensor):
            raise _Unreadable(
                "a shape, a tuple of ints such as (2, 3); you gave a tensor: its .shape?"
            )
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, tuple | list | torch.Size):
            try:
                return tuple(_as_int(v) for v in value)
            except _Unreadable:
                pass
        raise _Unreadable("a shape, a tuple of ints such as (2, 3)")
    if kind == "int":
        return _as_int(value)
    if kind == "number":
        return _as_number(value)
    if kind == "choice":
        if isinstance(value, str):
            letter = value.strip().strip("().:] ").lower()
            if letter in question.choices:
                return letter
        letters = ", ".join(f'"{c}"' for c in question.choices)
        raise _Unreadable(f"one of the letters {letters}, as a string")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
            return value.strip().lower() in ("true", "yes")
        raise _Unreadable("True or False")
    raise AssertionError(kind)


def _as_int(value: Any) -> int:
    number = _as_number(value)
    if not math.isfinite(number) or number != int(number):
        raise _Unreadable("a whole number, such as 12")
    return int(number)


def _matches(question: Question, given: Any, expected: Any) -> bool:
    if question.kind == "number":
        return math.isclose(given, expected, rel_tol=question.rel_tol, abs_tol=question.abs_tol)
    return given == expected


def grade_answer(question_id: str, answer: Any) -> Verdict:
    """Judge ``answer`` to question ``question_id`` without printing anything."""
    question = QUESTIONS.get(str(question_id).strip())
    if question is None:
        lesson = str(question_id).split("_")[0]
        same = [q for q in QUESTIONS if q.startswith(lesson + "_")] or list(QUESTIONS)
        return Verdict(
            str(question_id),
            False,
            f'There is no question "{question_id}". Questions here: {", ".join(same)}.',
        )
    label = f"Question {question.id.replace('_', '.')}"
    if answer is ... or answer is None:
        return Verdict(
            question.id,
            False,
            f"{label}: no answer yet. Set answer_{question.id} = ... in the cell above and run it.",
        )
    try:
        given = _normalise(question, answer)
    except _Unreadable as e:
        return Verdict(
            question.id, False, f"{label}: I expected {e}; you gave {_describe(answer)}."
        )
    if _matches(question, given, question.answer):
        return Verdict(question.id, True, f"{label}: correct. {question.why}".strip())
    for wrong, meaning in question.known_wrong.items():
        if _matches(question, given, wrong):
            return Verdict(
                question.id, False, f"{label}: not quite: {meaning}. Hint: {question.hint}"
            )
    if question.kind == "shape" and len(given) != len(question.answer):
        dims = len(question.answer)
        return Verdict(
            question.id,
            False,
            f"{label}: not quite: your shape has {len(given)} dim{'s' * (len(given) != 1)}, "
            f"the answer has {dims}. Hint: {question.hint}",
        )
    return Verdict(question.id, False, f"{label}: not quite. Hint: {question.hint}")


def check_answer(question_id: str, answer: Any = ..., *, strict: bool = False) -> None:
    """Print whether ``answer`` is right, and a hint when it is not.

    With ``strict=True`` (the graded cells), a wrong answer raises :class:`WrongAnswer` instead of
    printing, so that nbgrader gives the cell 0 points; a right one prints one line to stdout.
    """
    verdict = grade_answer(question_id, answer)
    if verdict.correct:
        print(f"✔ {verdict.message}")
        return
    if strict:
        raise WrongAnswer(verdict.message)
    print(f"✘ {verdict.message}")

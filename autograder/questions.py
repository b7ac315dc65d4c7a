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

Each lesson's questions live in its folder, ``autograder/lessons/<lesson>/questions.py`` (a list
``QUESTIONS``), found by name on first use: a new lesson's questions need no other registration.
A question's ``prompt`` is the notebook's "**Question NN.n.**" text as plain text (no markdown),
and ``tests/test_lesson_folders.py`` checks that the two say the same.

One rule for every kind of answer: the value itself, or a string that spells it ("98304" for a
number, "(2, 7, 8)" for a shape, "True" for a yes/no question); a choice is its letter, "b".
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import torch

from autograder.core import lesson_folders, syntax
from autograder.i18n import _, enumeration, ngettext
from autograder.kit.text import fmt_returned
from autograder.name_hints import install as install_name_hints

__all__ = [
    "QUESTIONS",
    "Question",
    "Verdict",
    "WrongAnswer",
    "check_answer",
    "grade_answer",
    "shape_of",
]

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
    readable: bool = True  # False: the answer could not be read (or no such question): no verdict


class WrongAnswer(Exception):
    """Raised by ``check_answer(..., strict=True)``; shown as one line in a notebook."""

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"WrongAnswer: {self}"]


class _Unreadable(Exception):
    """The answer is not of the kind the question asks for (message says what was expected)."""


# -- computing answers -------------------------------------------------------------------------


def shape_of(fn: Callable[..., torch.Tensor], *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``fn`` returns for inputs of these shapes.

    The inputs are one zero expanded to each shape (no memory), on the CPU: the meta device
    would do without memory for the output too, but its first matmul imports torch's Python meta
    registrations (and sympy), seconds a learner waits for at their first question. Only
    shapes too large to compute on the CPU go to the meta device.
    """
    large = any(math.prod(s) > 1 << 20 for s in shapes)
    device = "meta" if large else "cpu"
    tensors = [torch.zeros((), device=device).expand(s) for s in shapes]
    return tuple(fn(*tensors).shape)


# -- the questions: every lesson folder's questions.py ------------------------------------------


@cache
def _questions() -> dict[str, Question]:
    found: dict[str, Question] = {}
    for lesson in lesson_folders.lessons():
        module = lesson_folders.load(lesson, "questions")
        for q in getattr(module, "QUESTIONS", ()):
            if q.id in found:
                raise ValueError(f"question {q.id} is defined twice")
            found[q.id] = q
    return found


QUESTIONS: Mapping[str, Question] = lesson_folders.Gathered(_questions)


# -- reading and judging answers ---------------------------------------------------------------


def _describe(value: Any) -> str:
    kind = getattr(value, "type_name", None) if type(value).__name__ == "Opaque" else None
    return f"{fmt_returned(value)} ({kind or type(value).__name__})"  # Opaque: the sandbox's


def _as_number(value: Any) -> float:
    if isinstance(value, bool):
        raise _Unreadable(_("a number, not True/False"))
    try:
        if isinstance(value, torch.Tensor):  # one value; a tensor of several is no number
            if value.numel() == 1:
                return float(value.item())
        elif isinstance(value, numbers.Real):
            return float(value)
        elif hasattr(value, "item") and hasattr(value, "dtype"):  # a NumPy scalar
            return float(value.item())
    except (TypeError, ValueError, OverflowError, RuntimeError):
        pass  # an int too large for a float, a tensor of an odd dtype: not readable
    if isinstance(value, str):
        text = value.strip()
        if _GROUPED.fullmatch(text):  # 327,680 or 327 680 or 327_680: thousands separators
            text = re.sub(r"[,_ \u00a0\u202f]", "", text)
        try:
            return float(text.replace("_", ""))
        except ValueError:
            pass
    raise _Unreadable(_("a number, such as 12 or 0.5"))


# digits in groups of three after the first 1-3, one separator throughout, then any decimals
_GROUPED = re.compile(
    r"[+-]?\d{1,3}(?:(?P<sep>[,_ \u00a0\u202f])\d{3})(?:(?P=sep)\d{3})*(?:\.\d+)?"
)


def _normalise(question: Question, value: Any):
    """The answer in the normal form of the question's kind, or ``_Unreadable``."""
    kind = question.kind
    if kind == "shape":
        if isinstance(value, torch.Tensor):
            raise _Unreadable(
                _("a shape, a tuple of ints such as (2, 3), not a tensor (its .shape?)")
            )
        if isinstance(value, str):  # "(2, 7, 8)", as a number may be given as "98304"
            value = _literal(value)
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, tuple | list | torch.Size):
            try:
                return tuple(_as_int(v) for v in value)
            except _Unreadable:
                pass
        raise _Unreadable(_("a shape, a tuple of ints such as (2, 3)"))
    if kind == "int":
        return _as_int(value)
    if kind == "number":
        return _as_number(value)
    if kind == "choice":
        if isinstance(value, str):
            letter = value.strip().strip("().:] ").lower()
            if letter in question.choices:
                return letter
        letters = enumeration(f'"{c}"' for c in question.choices)
        raise _Unreadable(_("one of the letters {letters}, as a string").format(letters=letters))
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
            return value.strip().lower() in ("true", "yes")
        raise _Unreadable(_("True or False"))
    raise AssertionError(kind)


def _literal(text: str) -> Any:
    """A Python literal written as a string (``"(2, 7, 8)"``), or the string itself."""
    if len(text) > 200:
        return text
    try:
        return syntax.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _as_int(value: Any) -> int:
    number = _as_number(value)
    if not math.isfinite(number) or number != int(number):
        raise _Unreadable(_("a whole number, such as 12"))
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
            _('There is no question "{id}". Questions here: {ids}.').format(
                id=question_id, ids=enumeration(same)
            ),
            readable=False,
        )
    return verdict_on(question, answer, _("Question {id}").format(id=question.id.replace("_", ".")))


def verdict_on(question: Question, answer: Any, label: str) -> Verdict:
    """The verdict on ``answer`` to ``question``: the one rule for every question's answer.

    Its texts (the framing here, the question's ``hint``, ``why`` and ``known_wrong``) are in the
    current language (:mod:`autograder.i18n`): a question's own texts are extracted from its row
    and looked up as they are written."""
    if answer is ... or answer is None:
        return Verdict(
            question.id,
            False,
            _("{label}: no answer yet. Set answer_{id} = ... in the cell above and run it.").format(
                label=label, id=question.id
            ),
            readable=False,
        )
    try:
        given = _normalise(question, answer)
    except _Unreadable as e:
        return Verdict(
            question.id,
            False,
            _("{label}: I expected {expected}; you gave {given}.").format(
                label=label, expected=e, given=_describe(answer)
            ),
            readable=False,
        )
    if _matches(question, given, question.answer):
        why = _(question.why) if question.why else ""
        return Verdict(
            question.id, True, _("{label}: correct. {why}").format(label=label, why=why).strip()
        )
    hint = _(question.hint)
    for wrong, meaning in question.known_wrong.items():
        if _matches(question, given, wrong):
            message = _("{label}: not quite: {meaning}. Hint: {hint}")
            return Verdict(
                question.id, False, message.format(label=label, meaning=_(meaning), hint=hint)
            )
    if question.kind == "shape" and len(given) != len(question.answer):
        dims = len(question.answer)
        message = ngettext(
            "{label}: not quite: your shape has {n} dim, the answer has {dims}. Hint: {hint}",
            "{label}: not quite: your shape has {n} dims, the answer has {dims}. Hint: {hint}",
            len(given),
        )
        return Verdict(
            question.id,
            False,
            message.format(label=label, n=len(given), dims=dims, hint=hint),
        )
    return Verdict(
        question.id, False, _("{label}: not quite. Hint: {hint}").format(label=label, hint=hint)
    )


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


# check_answer("05_2", answer_05_2) or check(softmax) before that cell has run: which cell to run
install_name_hints(QUESTIONS)

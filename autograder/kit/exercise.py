"""Declaring a check: the ``@exercise`` mark, the failure a check raises, and shared forbid lists.

A lesson's ``checks.py`` marks the check of each of its exercises::

    @exercise("causal_mask", forbid=("torch.tril",))
    def check_causal_mask(sub: Submission) -> None:
        ...  # raise CheckFailure (kit.fail) on the first thing that is wrong

The mark only records the rules on the function; ``autograder.core.registry`` finds the marked
functions of every lesson folder and takes each exercise's lesson and points from the contract
table (``autograder.contract``), so nothing is registered by importing a module.

``forbid`` names what the learner may not call while this exercise is judged, as dotted names
resolved in the sandbox: a Python function or class (every method of a class counts), a torch
callable such as ``torch.softmax`` or ``torch.Tensor.softmax`` (caught through torch's function
mode, however it is reached), or an ATen op such as ``aten._softmax`` (caught at dispatch, or when
Python calls ``torch.ops.aten._softmax``, however it is looked up). An ATen name may be a
shell-style pattern: ``aten.*attention*`` is every op whose name contains "attention"; so may a
torch name: ``torch.*attention*`` is every torch function whose name contains it.
``course_lib``'s own reference of the exercise is always forbidden.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CheckFn = Callable[[Any], None]


class CheckFailure(Exception):
    """What a check raises when the learner's code is wrong.

    ``message`` says what was checked and what went wrong (with the smallest failing example:
    shapes and a few numbers, yours vs expected); ``mistake`` is the id of the catalogue entry it
    looks like, or None when it looks like none.
    """

    def __init__(self, message: str, *, mistake: str | None = None):
        super().__init__(message)
        self.message = message
        self.mistake = mistake


@dataclass(frozen=True)
class ExerciseMark:
    """How one exercise is judged, besides its check: set by ``@exercise``."""

    name: str  # the contract name the check judges
    forbid: tuple[str, ...] = ()
    time_limit: float = 20.0  # seconds of wall time for all of this exercise's calls
    needs: tuple[str, ...] = ()  # other names the check calls (reported if missing)
    # why a forbidden name that is not the exercise itself is forbidden: ((name, why), ...)
    forbid_why: tuple[tuple[str, str], ...] = ()
    measures_memory: bool = False  # its check measures a call's peak memory (peak_memory)


def exercise(
    name: str,
    *,
    forbid: tuple[str, ...] = (),
    time_limit: float = 20.0,
    needs: tuple[str, ...] = (),
    forbid_why: dict[str, str] | None = None,
    measures_memory: bool = False,
) -> Callable[[CheckFn], CheckFn]:
    """Mark ``check`` as the judge of exercise ``name`` (a name of the contract table).

    ``forbid_why`` says, for a forbidden name that is not the exercise's own built-in, why it is
    forbidden ("does the max-subtraction for you"); the failure message shows it. Its keys may
    be patterns, as ``forbid``'s."""
    why = tuple((forbid_why or {}).items())

    def mark(check: CheckFn) -> CheckFn:
        check.__exercise__ = ExerciseMark(
            name, tuple(forbid), time_limit, tuple(needs), why, measures_memory
        )
        return check

    return mark


def rules_of(obj: Any) -> ExerciseMark | None:
    """The rules ``@exercise`` put on ``obj``, or None when it is not a marked check."""
    rules = getattr(obj, "__exercise__", None)
    return rules if isinstance(rules, ExerciseMark) else None


# What attention exercises may not call: torch's own attention, however it is reached. The ATen
# pattern is every op with "attention" in its name (SDPA's math, flash, efficient and cuDNN
# kernels, native multi-head attention...), called as torch.ops.aten.<name> or reached below; the
# torch pattern every torch function with it in its name, private ones included
# (torch._scaled_dot_product_attention_math, which autograd decomposes before ATen sees it).
ATTENTION_FORBID = (
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.multi_head_attention_forward",
    "torch.nn.MultiheadAttention",
    "torch.nn.attention.flex_attention.flex_attention",
    "aten.*attention*",
    "torch.*attention*",
)
MHA_FORBID = ATTENTION_FORBID  # aten._native_multi_head_attention is in the pattern

"""The caller's inputs must come back as they went in: the worker-side half of [modifies-input].

A function that changes its arguments in place (``k.transpose_(-2, -1)``,
``scores.masked_fill_(...)``, ``x.sub_(m).exp_()``, ``q /= math.sqrt(d)``) can return exactly the
right value and still break the caller, who reuses ``k`` or ``scores`` afterwards. The judge only
sees the return value (the arguments are copies in the sandbox), so the comparison happens next
to the learner's call, in the sandbox worker::

    inputs = InputSnapshot(fn, args, kwargs)  # before the call, outside the watching modes
    value = fn(*args, **kwargs)               # the learner's call, watched as usual
    problem = inputs.check()                  # after it, outside the modes: InputModified | None
    if problem is not None and error is None:
        error = problem                       # reported like an error the learner's code raised

The error reaches the judge as a ``LearnerError`` of kind ``"InputModified"``, which
``autograder.kit.calling`` names ``modifies-input`` for every exercise. This module imports
nothing but ``torch`` and ``inspect``: the sandbox holds it beside the worker, which
calls it
around every learner call (``autograder.sandbox.inside.worker``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import torch


class InputModified(Exception):
    """The learner's code changed a tensor it was given; the message names it and how."""


def _tensors(value: Any, label: str, depth: int = 0) -> Iterator[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.Tensor):
        yield label, value
    elif depth < 3 and isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _tensors(v, f"{label}[{i}]", depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for k, v in value.items():
            yield from _tensors(v, f"{label}[{k!r}]", depth + 1)


def _labelled(fn: Callable[..., Any], args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """Each argument with the learner's own parameter name where the signature gives one."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        return list(bound.arguments.items())
    except (TypeError, ValueError):  # no signature, or arguments that do not bind
        return [(f"argument {i + 1}", a) for i, a in enumerate(args)] + list(kwargs.items())


class InputSnapshot:
    """What each tensor argument was before the call: values, version counter, shape, strides."""

    def __init__(self, fn: Callable[..., Any], args: tuple, kwargs: dict):
        self.before = []
        with torch.no_grad():
            for name, arg in _labelled(fn, args, kwargs):
                for label, t in _tensors(arg, name):
                    values = None if t.device.type == "meta" else t.detach().clone()
                    layout = (tuple(t.shape), t.stride(), t.storage_offset(), t.dtype)
                    self.before.append((label, t, t._version, layout, values))

    def changes(self) -> list[str]:
        """How each changed argument changed, e.g. "the shape of k (2, 5, 4) became (2, 4, 5)"."""
        found = []
        with torch.no_grad():
            for label, t, version, layout, values in self.before:
                shape, _, _, dtype = layout
                now = (tuple(t.shape), t.stride(), t.storage_offset(), t.dtype)
                if now[0] != shape:
                    found.append(f"the shape of {label} {shape} became {now[0]}")
                elif now != layout:
                    found.append(f"{label} was transposed or re-strided in place")
                elif values is not None and not _same(t, values):
                    found.append(f"the values of {label} were overwritten")
                elif t._version != version:
                    found.append(f"{label} was written to in place")
        return found

    def check(self) -> InputModified | None:
        """The error to report when the call changed an argument, else None."""
        found = self.changes()
        if not found:
            return None
        return InputModified(
            "; ".join(found) + ": your code changed a tensor it was given, in place "
            "(transpose_, masked_fill_, sub_, /= ...); the caller still needs it as it was"
        )


def _same(t: torch.Tensor, before: torch.Tensor) -> bool:
    now = t.detach()
    if now.is_floating_point() or now.is_complex():
        return bool(((now == before) | (now.isnan() & before.isnan())).all())
    return bool((now == before).all())

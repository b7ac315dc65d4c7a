"""A module's calls are deterministic and independent (COURSE_SPEC: dropout acts only where an
exercise takes a ``dropout`` argument, and calls depend only on their arguments): one probe for
every module exercise, in its contract rules (:func:`expect_module_calls`)."""

from __future__ import annotations

from typing import Any

import torch

from autograder.core.mistakes import get as get_mistake
from autograder.i18n import _
from autograder.kit.calling import Call
from autograder.kit.exercise import CheckFailure
from autograder.kit.modules import construct
from autograder.kit.repeat import _same, paused
from autograder.sandbox.host.replies import LearnerError


def expect_module_calls(
    sub: Any, name: str, args: tuple, x: Any, *, masked=False, params="forward", **kwargs: Any
) -> None:
    """Calls of a new ``name(*args, **kwargs)`` module (training mode, the contract's default
    dropout 0) are deterministic and independent. Its forward is given ``x`` (a tensor, or the
    shape of a random float one) as :func:`call_lengths` makes the calls (with a mask first when
    ``masked``): made twice, the first call agrees with itself, and in eval mode too; made in
    this order on one instance and in the reverse order on a second one with the same weights,
    each call agrees (a remembered mask, positions cached at the first length)."""
    obj, label = construct(sub, name, *args, **kwargs)
    twin, _label = construct(sub, name, *args, **kwargs)
    twin.apply("load_state_dict", dict(obj.method("state_dict")))
    if isinstance(x, tuple):
        x = torch.randn(*x, generator=torch.Generator().manual_seed(124))
    made = [Call(label, *a, params=params, **kw) for a, kw in call_lengths(x, masked=masked)]
    with paused():
        first = made[0].run(obj)
        if not _same(first, made[0].run(obj)):
            get_mistake("dropout-always-on")
            raise CheckFailure(
                _(
                    "{call} gave different outputs on two calls with the same input in training "
                    "mode, a new module's mode: without dropout (or with dropout=0) it must give "
                    "the same output."
                ).format(call=made[0]),
                mistake="dropout-always-on",
            )
        forward = [_outcome(c, obj) for c in made]
        backward = [_outcome(c, twin) for c in reversed(made)][::-1]
        for c, a, b in zip(made, forward, backward, strict=True):
            if not _agree(a, b):
                get_mistake("state-between-calls")
                order = ", ".join(str(x) for x in made)
                raise CheckFailure(
                    _(
                        "{call} gave a different result when made after other calls than on a "
                        "new module with the same weights (calls in order: {order}): a call must "
                        "not depend on the calls before it."
                    ).format(call=c, order=order),
                    mistake="state-between-calls",
                )
        obj.eval()
        for c, a in zip(made, forward, strict=True):
            if not _agree(a, _outcome(c, obj)):
                mistake = "mask-ignored" if "mask" in c.kwargs else None
                raise CheckFailure(
                    _(
                        "{call} gave different outputs in training mode and in eval mode: with "
                        "no dropout the two modes compute the same."
                    ).format(call=c),
                    mistake=mistake,
                )


def call_lengths(x: torch.Tensor, *, masked: bool = False) -> list:
    """The ``calls`` of :func:`expect_module_calls` for an input ``x`` (float ``(..., L, d)`` or
    tokens ``(B, L)``): its first L - 1 positions (with a causal mask first when ``masked``, then
    without), then all of ``x``."""
    dim = -2 if x.is_floating_point() else -1
    short = x.narrow(dim, 0, x.shape[dim] - 1).clone()
    causal = torch.ones(short.shape[dim], short.shape[dim], dtype=torch.bool).tril()
    return [((short,), {"mask": causal})] * masked + [((short,), {}), ((x,), {})]


def _outcome(c: Any, target: Any) -> Any:
    """The value of ``c`` on ``target``, or the learner's error."""
    try:
        return c.invoke(target, devices=False)
    except LearnerError as err:
        return err


def _agree(a: Any, b: Any) -> bool:
    if isinstance(a, LearnerError) or isinstance(b, LearnerError):
        return isinstance(a, LearnerError) and isinstance(b, LearnerError) and a.kind == b.kind
    return _same(a, b)

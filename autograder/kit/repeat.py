"""Calls are independent: a function's result depends only on its arguments, and so does a
module's in eval mode (and in training mode too, where it has no dropout). Code that keeps state
across calls (a remembered mask, a cache keyed by a shape or a length, a position counter on
``self``) passes a check whose every case is its first call, so every check run through
``with_rules`` is watched: when a target (the submission's function, or a module) is called a
second time with other arguments of the same dtypes and devices, its first call is made again
and must give the same result. KVCache is stateful by contract: its ``append`` calls, and calls
given a remote object (a cache) are left out. A cache filled by an earlier call and read by a
later one (keyed by a shape or a length) makes the later call wrong instead: when a watched check
fails, its last function call is made again in a fresh exercise process, where it is the first.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import torch

from autograder.core.mistakes import get as get_mistake
from autograder.i18n import _
from autograder.kit.exercise import CheckFailure
from autograder.kit.text import fmt_num
from autograder.sandbox.host.replies import LearnerError

_DONE = object()
# (id(target), call name, signature) -> (target, first Call, its value, signature), or _DONE once
# judged;
# None outside a watched check. A ContextVar: grade judges in threads.
_FIRST: ContextVar[dict | None] = ContextVar("first_calls", default=None)
# (target, Call, its value, whether the module was in training mode) of the last watched call.
_LAST: ContextVar[tuple | None] = ContextVar("last_call", default=None)
# (target, Call) of the call being made (it may raise).
_TRYING: ContextVar[tuple | None] = ContextVar("trying_call", default=None)


@contextmanager
def watching() -> Iterator[None]:
    """Within: every successful ``Call.run`` is recorded (:func:`record`)."""
    token, last, trying = _FIRST.set({}), _LAST.set(None), _TRYING.set(None)
    try:
        yield
    except CheckFailure as failure:
        _random_in_eval(failure)
        if failure.mistake not in ("dropout-always-on", "state-between-calls"):
            _made_on_new_module(failure)
        if failure.mistake not in ("dropout-always-on", "state-between-calls"):
            _made_fresh(failure)
        raise
    finally:
        _FIRST.reset(token)
        _LAST.reset(last)
        _TRYING.reset(trying)


def attempt(target: Any, c: Any) -> None:
    """``c`` is about to run on ``target`` (it may raise: the failure is then about it)."""
    if _FIRST.get() is not None:
        _TRYING.set(None if _left_out(c) else (target, c))


def _made_on_new_module(failure: CheckFailure) -> None:
    """The call of a module that failed a check after other calls, made again on a new module of
    the same class, weights and mode, where it is the first: a different result (or one where
    the failing call raised) is state kept between calls (positions cached at the first length,
    a remembered mask). ``construct`` records how a module was made (``made``)."""
    if failure.mistake not in (None, "wrong-dtype"):  # named otherwise: it stays
        return
    tried, seen = _TRYING.get(), _LAST.get()
    if tried is not None:  # the failing call raised
        (target, c), value, training = tried, None, _training(tried[0])
    elif seen is not None and failure.mistake is None:  # it returned a wrong value
        target, c, value, training = seen
    else:
        return
    if getattr(target, "made", None) is None:
        return
    if not any(key[0] == id(target) for key in _FIRST.get() or {}):
        return  # its first call: nothing before it
    try:
        twin = _twin(target, training)  # in the mode of that call, not the module's now
        again = c.invoke(twin, devices=False)
        if not _same(again, c.invoke(twin, devices=False)) or (
            tried is None and _same(value, again)
        ):
            return
    except Exception:  # noqa: BLE001 - the failure already says what went wrong
        return
    get_mistake("state-between-calls")
    failure.mistake = "state-between-calls"
    failure.message = _(
        "{call} gave a different result on a new module with the same weights, where it was the "
        "first call: a call must not depend on the calls before it."
    ).format(call=c)


def _random_in_eval(failure: CheckFailure) -> None:
    """A module in eval mode whose wrong output changes from call to call has dropout left on
    (``F.dropout(x, p, training=True)``, a dropout that ignores ``self.training``; trial 48)."""
    seen = _LAST.get()
    if failure.mistake is not None or seen is None:
        return
    target, c, _value, training = seen
    made = getattr(target, "made", None)
    if training or not made or made[0] not in get_mistake("dropout-always-on").exercises:
        return
    try:
        if _same(c.invoke(target, devices=False), c.invoke(target, devices=False)):
            return
    except Exception:  # noqa: BLE001 - the failure already says what went wrong
        return
    failure.mistake = "dropout-always-on"


def _twin(target: Any, training: bool) -> Any:
    """A new module made as ``target`` was, with its weights (and their dtype), in training mode
    or eval mode."""
    name, args, kwargs = target.made
    twin = target._sub.new(name, *args, **kwargs)
    state = dict(target.method("state_dict"))
    twin.apply("load_state_dict", state)
    dtypes = {t.dtype for t in state.values() if isinstance(t, torch.Tensor)}
    if len(dtypes) == 1:
        twin.to(dtypes.pop())
    if not training:
        twin.eval()
    return twin


def watched(check):
    """The check ``check`` run :func:`watching` (for a check without contract rules)."""

    def run(sub) -> None:
        with watching():
            check(sub)

    run.__exercise__ = check.__exercise__
    run.__name__, run.__doc__ = check.__name__, check.__doc__
    run.__module__ = check.__module__
    return run


def _made_fresh(failure: CheckFailure) -> None:
    """The last function call of a failed check made again in a fresh exercise process (the
    failure stays as it is when the target is a module, or the call is random)."""
    seen = _LAST.get()
    if seen is None:
        return
    target, c, value = seen[:3]
    if not hasattr(target, "begin") or getattr(target, "exercise", None) is None:
        return
    try:
        target.begin(target.exercise)
        again = c.invoke(target, devices=False)
        if _same(value, again) or not _same(again, c.invoke(target, devices=False)):
            return
    except Exception:  # noqa: BLE001 - the failure already says what went wrong
        return
    get_mistake("state-between-calls")
    failure.mistake = "state-between-calls"
    failure.message = _(
        "{call} gave a different result in a fresh process, where it was the first call: a call "
        "must not depend on the calls before it."
    ).format(call=c)


@contextmanager
def paused() -> Iterator[None]:
    """Within: calls are not recorded (a probe made after a failure, to name it)."""
    token = _FIRST.set(None)
    try:
        yield
    finally:
        _FIRST.reset(token)


def expect_deterministic(target: Any, c: Any, what: str, mutants: Any = ()) -> None:
    """A module without dropout (``what`` names it) agrees with itself in training mode
    (``mutants`` name an error the call raises)."""
    first, second = c.run(target, mutants=mutants), c.run(target)
    if not _same(first, second):
        get_mistake("dropout-always-on")
        raise CheckFailure(
            _(
                "{call} gave different outputs on two calls with the same input in training "
                "mode, a new module's mode: {module} has no dropout."
            ).format(call=c, module=what),
            mistake="dropout-always-on",
        )


def record(target: Any, c: Any, value: Any) -> None:
    """After ``c`` ran on ``target`` and gave ``value``: remember a first call; at a second call
    with other arguments alike in dtype and device, make the first call again (twice when it
    differs and the module is in training mode, where dropout may be the difference)."""
    first = _FIRST.get()
    if first is None:
        return
    _TRYING.set(None)  # it returned
    if _left_out(c) or not _tensors_ok(value):
        return
    sig = (_signature(c), _training(target))
    _LAST.set((target, c, value, sig[1]))
    key = (id(target), c.name, sig)
    seen = first.get(key)
    if seen is None:
        first[key] = (target, c, value, sig)
        return
    if seen is _DONE:
        return
    first[key] = _DONE
    _replay(target, seen[1], seen[2], c, training=sig[1])


def _replay(target: Any, c0: Any, value: Any, between: Any, *, training: bool) -> None:
    try:
        again = c0.invoke(target, devices=False)  # values only: devices are judged by the check
        if _same(value, again):
            return
        third = c0.invoke(target, devices=False)
        if _shapes(value) != _shapes(again) or _shapes(again) != _shapes(third):
            _raise(c0, between, value, again)  # dropout keeps shapes; a growing cache does not
        if not _same(again, third):  # different every time: random
            if training:
                return  # dropout in training mode, judged by the check
            raise random_failure(target, c0)
    except LearnerError as err:  # it returned the first time
        get_mistake("state-between-calls")
        raise CheckFailure(
            _(
                "{call} returned the first time, but raised {error} when called again after "
                "{other}: a call must not depend on the calls before it."
            ).format(call=c0, error=err.kind, other=between),
            mistake="state-between-calls",
        ) from None
    _raise(c0, between, value, again)


def random_failure(target: Any, c: Any) -> CheckFailure:
    """The failure for a module whose call ``c`` gives a different output each time: dropout
    left on, or, where a batch of two copies of one sequence gives both the same output (the
    randomness is not drawn per value, as dropout's is), new weights made at each call (a layer
    built in forward) for a model whose mistakes name that."""
    if _shared_by_batch(target, c):
        get_mistake("layers-not-registered")
        return CheckFailure(
            _(
                "{call} gave different outputs on two calls with the same inputs, the same for "
                "every sequence of a batch: it builds a layer with new random weights at each "
                "call, which training never reaches; build it in __init__."
            ).format(call=c),
            mistake="layers-not-registered",
        )
    get_mistake("dropout-always-on")
    return CheckFailure(
        _("{call} gave different outputs on two calls with the same inputs.").format(call=c),
        mistake="dropout-always-on",
    )


def _shared_by_batch(target: Any, c: Any) -> bool:
    made = getattr(target, "made", None)
    x = c.args[0] if len(c.args) == 1 and not c.kwargs else None
    if not made or made[0] not in get_mistake("layers-not-registered").exercises:
        return False
    if not isinstance(x, torch.Tensor) or x.dim() < 2:
        return False
    twice = copy.copy(c)
    twice.args = (torch.cat([x[:1], x[:1]]),)
    try:
        with paused():
            out = twice.invoke(target, devices=False)
    except Exception:  # noqa: BLE001 - the randomness is named as it was
        return False
    return isinstance(out, torch.Tensor) and len(out) == 2 and bool(torch.equal(out[0], out[1]))


def _raise(c0: Any, between: Any, value: Any, again: Any) -> None:
    get_mistake("state-between-calls")
    if _shapes(value) != _shapes(again):
        raise CheckFailure(
            _(
                "{call} gave shapes {first} the first time and {second} the second time, after "
                "{other} was called: a call must not depend on the calls before it."
            ).format(
                call=c0,
                first=", ".join(map(str, _shapes(value))),
                second=", ".join(map(str, _shapes(again))),
                other=between,
            ),
            mistake="state-between-calls",
        )
    raise CheckFailure(
        _(
            "{call} gave a different result the second time, after {other} was called "
            "(by up to {diff}): a call must not depend on the calls before it."
        ).format(call=c0, other=between, diff=fmt_num(_diff(value, again))),
        mistake="state-between-calls",
    )


def _left_out(c: Any) -> bool:
    """KVCache.append (stateful by contract), a call given a remote object (a cache), and calls
    on meta tensors (no values to compare)."""
    if c.name.endswith(".append"):
        return True
    return any(
        hasattr(a, "apply") or (isinstance(a, torch.Tensor) and a.device.type == "meta")
        for a in _flat(c)
    )


def _tensors_ok(value: Any) -> bool:
    return all(t.device.type != "meta" for t in _leaves(value) if isinstance(t, torch.Tensor))


def _training(target: Any) -> bool:
    """Whether a module is in training mode (False for a function or a non-module)."""
    if not hasattr(target, "attr"):
        return False
    try:
        return bool(target.attr("training"))
    except Exception:  # noqa: BLE001 - no such attribute: not a module
        return False


def _signature(c: Any) -> tuple:
    """The dtypes and devices of the float arguments (a module moved to another dtype is given
    inputs of that dtype): calls alike in these may follow one another."""
    return tuple(
        sorted(
            {
                (str(a.dtype), a.device.type)
                for a in _flat(c)
                if isinstance(a, torch.Tensor) and a.is_floating_point()
            }
        )
    )


def _flat(c: Any) -> list[Any]:
    return list(c.args) + [c.kwargs[k] for k in sorted(c.kwargs)]


def _shapes(x: Any) -> list:
    return [tuple(t.shape) for t in _leaves(x) if isinstance(t, torch.Tensor)]


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, (tuple, list)):
        return [y for item in x for y in _leaves(item)]
    return [x]


def _same(a: Any, b: Any) -> bool:
    """Equal results: tensors of the same shape, dtype and values (NaN equal to NaN), and
    anything else equal."""
    a, b = _leaves(a), _leaves(b)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
            if not (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)):
                return False
            if x.shape != y.shape or x.dtype != y.dtype or x.device != y.device:
                return False
            if x.is_floating_point() or x.is_complex():
                if not torch.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True):
                    return False
            elif not torch.equal(x, y):
                return False
        else:
            try:
                if bool(x != y):
                    return False
            except Exception:  # noqa: BLE001 - not comparable: treat as equal
                continue
    return True


def _diff(a: Any, b: Any) -> float:
    diffs = [
        float((x.double() - y.double()).abs().nan_to_num(0.0).max())
        for x, y in zip(_leaves(a), _leaves(b), strict=False)
        if isinstance(x, torch.Tensor)
        and isinstance(y, torch.Tensor)
        and x.shape == y.shape
        and x.numel()
        and x.is_floating_point()
    ]
    return max(diffs, default=float("nan"))

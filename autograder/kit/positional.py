"""Arguments by position (COURSE_SPEC fixes each signature, its order included): a call or a
construction with its optional arguments given by position, in the contract's order, must be the
one given by keyword. A signature in another order (``MultiHeadAttention(d_model, num_heads,
dropout=0.0, bias=False)``, as ``nn.MultiheadAttention``'s) passes every check that names its
arguments and breaks a caller who does not."""

from __future__ import annotations

from typing import Any

from autograder.contract import BY_NAME
from autograder.i18n import _
from autograder.kit.calling import Call, fail
from autograder.kit.modules import construct
from autograder.kit.repeat import _same, paused
from autograder.sandbox.host.replies import LearnerError


def by_position(name: str, args: tuple, kwargs: dict, params: tuple | None = None) -> tuple:
    """``args`` followed by ``kwargs``' values in the contract's order of ``name``'s parameters
    (``params``: another parameter list of the contract, a forward's)."""
    rest = (BY_NAME[name].params if params is None else params)[len(args) :]
    return (*args, *(kwargs[p] for p in rest[: len(kwargs)]))


def expect_same_by_position(sub: Any, name: str, args: tuple, kwargs: dict, *call: Any) -> None:
    """``name(*args, **kwargs)`` and the same with ``kwargs`` given by position agree: a
    function's two results; a module's parameters, and its outputs on ``call`` (the forward's
    arguments) in eval mode once the second holds the first one's weights."""
    keyword, positional = Call(name, *args, **kwargs), Call(name, *by_position(name, args, kwargs))
    try:
        with paused():
            if BY_NAME[name].kind == "function":
                same = _same(keyword.invoke(sub), positional.invoke(sub))
            else:
                same = _same_module(sub, name, args, kwargs, call)
    except LearnerError:
        same = False
    if not same:
        raise _out_of_order(positional, keyword, name, BY_NAME[name].signature)


def expect_forward_by_position(obj: Any, label: str, name: str, args: tuple, kwargs: dict) -> None:
    """The module ``obj`` (in eval mode) called with ``kwargs`` given by position, in the
    contract's order of ``name``'s forward, gives what it gives by keyword: a forward whose
    parameters are in another order (``forward(query, mask=None, key=None, value=None)``) passes
    every check that names them and breaks a caller who does not. A keyword call that raises is
    left to the checks."""
    ex = BY_NAME[name]
    params = f"{ex.name}.{ex.method_name}"
    keyword = Call(label, *args, params=params, **kwargs)
    positional = Call(label, *by_position(name, args, kwargs, ex.method_params), params=params)
    with paused():
        try:
            want = keyword.invoke(obj)
        except LearnerError:
            return
        try:
            same = _same(want, positional.invoke(obj))
        except LearnerError:
            same = False
    if not same:
        raise _out_of_order(positional, keyword, params, ex.method[len(ex.method_name) :])


def _out_of_order(positional: Call, keyword: Call, name: str, signature: str) -> Exception:
    return fail(
        _(
            "{positional} is not {keyword}: given by position, the arguments reach other "
            "parameters. {name} takes them in the contract's order: {name}{signature}."
        ).format(
            positional=positional,
            keyword=keyword,
            name=name,
            signature=signature,
        ),
        "arguments-out-of-order",
    )


def _same_module(sub: Any, name: str, args: tuple, kwargs: dict, call: tuple) -> bool:
    one, _label = construct(sub, name, *args, **kwargs)
    two, _label = construct(sub, name, *by_position(name, args, kwargs))
    if one.apply("describe").get("parameters") != two.apply("describe").get("parameters"):
        return False
    two.apply("load_state_dict", dict(one.method("state_dict")))
    one.eval()
    two.eval()
    return _same(one(*call), two(*call))

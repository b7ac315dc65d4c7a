"""Gradients flow (COURSE_SPEC, Conventions): a function's output has a gradient path to its float
inputs, and a module's to its inputs and every parameter. One check for every exercise."""

from __future__ import annotations

from typing import Any

import torch

from autograder.i18n import _, enumeration
from autograder.kit.calling import Call, fail, learner_failed
from autograder.kit.exercise import CheckFailure
from autograder.kit.inputs import generator, randn
from autograder.kit.modules import construct
from autograder.kit.repeat import paused, watching
from autograder.sandbox.host.remote_object import RemoteObject
from autograder.sandbox.host.replies import LearnerError


def remote_function(target: Any, name: str) -> RemoteObject:
    """The learner's global ``name`` as a remote object, for ``apply`` (a helper of
    :mod:`autograder.sandbox.inside.remote` given the function itself)."""
    return target if isinstance(target, RemoteObject) else RemoteObject(target, name, name)


def missing_gradients(
    target: Any, c: Call, *, output: int | None = None, uncalled: list | None = None
) -> list[str]:
    """What gets no gradient when ``c`` runs on ``target`` (the sandbox's ``gradients`` helper):
    the labels of float inputs (``c.params`` names the positional ones) and the names of
    parameters, or ``["<output>"]`` when the output itself has no gradient path. ``uncalled``,
    when given, receives the layers (not ModuleList/ModuleDict) that the forward never called."""
    got = _gradients(target, c, output)
    if not got:
        return []
    if not got.get("output_has_grad"):
        return ["<output>"]
    if uncalled is not None:
        uncalled += dict.fromkeys(n for n in got.get("uncalled", []) if isinstance(n, str))
    names = tuple(c.params)
    missing = [
        names[i] if i < len(names) else f"arg{i}"
        for i, (a, g) in enumerate(zip(c.args, got.get("args", []), strict=False))
        if _float(a) and g is None
    ]
    missing += [
        k for k, g in got.get("kwargs", {}).items() if _float(c.kwargs.get(k)) and g is None
    ]
    return missing + [n for n, g in got.get("params", {}).items() if g is None]


def sparse_gradients(target: Any, c: Call) -> list[str]:
    """The parameters whose gradient, when ``c`` runs on ``target``, is a sparse tensor (an
    embedding looked up with ``sparse=True``: Adam and AdamW refuse it)."""
    return [n for n in _gradients(target, c, None).get("sparse", []) if isinstance(n, str)]


def _gradients(target: Any, c: Call, output: int | None) -> dict:
    """The sandbox's ``gradients`` helper on ``c`` ({} for a reply that is not a dict)."""
    got = remote_function(target, c.name).apply(
        "gradients", tuple(c.args), dict(c.kwargs), None, output
    )
    return got if isinstance(got, dict) else {}


def _float(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def expect_gradients(target: Any, c: Call, *, output: int | None = None) -> None:
    """``c`` run on ``target`` (a Submission: the function ``c.name``; a remote module: its
    forward) must let a gradient reach every float input and every parameter (``output``: which
    item of a returned tuple is differentiated)."""
    uncalled: list[str] = []
    try:
        missing = missing_gradients(target, c, output=output, uncalled=uncalled)
    except LearnerError as err:
        raise backward_failed(c, err) from None
    if not missing:
        return
    if missing == ["<output>"]:
        raise fail(
            _(
                "{call}: the output has no gradient (requires_grad is False), so nothing before "
                "it can train."
            ).format(call=c),
            "breaks-autograd",
        )
    shown = enumeration(str(m) for m in missing[:4]) + (" ..." if len(missing) > 4 else "")
    # the layers that hold a missing parameter (each dotted prefix of its name), outermost only;
    # sets, and names of at most 200 characters: the lists are the learner's (red team round 19)
    names = [m for m in map(str, missing) if len(m) <= 200]
    holders = {m[:i] for m in names for i, c in enumerate(m) if c == "."}
    unused = [n for n in uncalled if n in holders]
    held = set(unused)
    unused = [n for n in unused if not any(n[:i] in held for i, c in enumerate(n) if c == ".")]
    if unused:
        raise fail(
            _(
                "{call}: no gradient reaches {names} from the output: {layers}, built in "
                "__init__, is never called in forward (a weight read through .data or "
                ".detach() carries no gradient either), so it cannot train (call it, or do not "
                "build it)."
            ).format(call=c, names=shown, layers=enumeration(unused[:3])),
            "breaks-autograd",
        )
    raise fail(
        _("{call}: no gradient reaches {names} from the output, so it cannot train.").format(
            call=c, names=shown
        ),
        "breaks-autograd",
    )


def backward_failed(c: Call, err: LearnerError) -> CheckFailure:
    """What to report when a call made for its gradients raised: backward() meeting a tensor
    changed in place after the forward used it, named; anything else as the call's error."""
    if "modified by an inplace operation" not in err.message:
        return learner_failed(c, err)
    return fail(
        _(
            "{call} runs, but backward() through it raised {error}: a tensor the gradient needs "
            "was changed in place after it was used."
        ).format(call=c, error=err.kind),
        "inplace-breaks-backward",
    )


def fitted(target: Any, c: Call, steps: int, lr: float) -> Any:
    """``target.apply("fit", *c.args, steps, lr)`` (the sandbox's training loop): a backward()
    that meets a tensor changed in place after its use is named, as for one call."""
    try:
        return target.apply("fit", *c.args, steps, lr)
    except LearnerError as err:
        if "modified by an inplace operation" not in err.message:
            raise
        raise backward_failed(c, err) from None


def expect_true_gradients(target: Any, c: Call, *, output: int | None = None) -> None:
    """The gradients ``c`` gives on ``target`` agree with its values (float64): along a random
    direction, backward()'s derivative for each float input and parameter equals the centred
    difference of the output. A .detach() on one of several paths from an input leaves a
    gradient that arrives but is wrong, which :func:`expect_gradients` cannot see."""
    try:
        rows = remote_function(target, c.name).apply(
            "derivatives", tuple(c.args), dict(c.kwargs), output
        )
    except LearnerError as err:
        raise backward_failed(c, err) from None
    names = tuple(c.params)
    wrong = _wrong_gradient(rows)
    if wrong is None:
        return
    kind, key = wrong
    what = _("the output")
    if output is None:  # several outputs summed: which of them lost a path, where one did
        lost = []  # a single tensor (the index ignored) is wrong both times: "the output"
        for i in (0, 1):
            with paused():
                try:
                    one = remote_function(target, c.name).apply(
                        "derivatives", tuple(c.args), dict(c.kwargs), i
                    )
                except LearnerError:
                    break
            lost.append(not one or _wrong_gradient(one) == wrong)  # []: no gradient at all
        if lost.count(True) == 1:
            what = _("element {i} of what it returns").format(i=lost.index(True))
    if kind == "arg":
        key = names[key] if key < len(names) else f"arg{key}"
    raise fail(
        _(
            "{call}: the gradient of {name} is not the derivative of {what}: a .detach(), .data "
            "or no_grad cuts one of the paths from {name} to it."
        ).format(call=c, name=key, what=what),
        "gradient-path-detached",
    )


def _wrong_gradient(rows) -> tuple | None:
    """The first (kind, key) whose backward() derivative differs from its centred differences."""
    for kind, key, auto, *steps, size in rows if isinstance(rows, list) else ():
        auto = auto or 0.0
        if not any(abs(auto - d) <= 1e-4 * (1 + size) + 1e-3 * (abs(d) + abs(auto)) for d in steps):
            return kind, key
    return None


def wide_call(name: str, g: Any, *shapes: tuple, params: Any = None, **kwargs: Any) -> Call:
    """A call of ``name`` on random inputs of ``shapes`` (``g``: a generator or its seed), for
    :func:`expect_true_gradients` (sizes over 1: with one position, attention mixes nothing);
    ``params``: a Call whose parameter names to show."""
    g = generator(g) if isinstance(g, int) else g
    c = Call(name, *(randn(g, *s) for s in shapes), **kwargs)
    c.params = params.params if isinstance(params, Call) else c.params
    return c


def train_with_dropout(sub: Any, name: str, *args: Any) -> tuple[Any, Call]:
    """The module ``name(*args, dropout=0.5)`` in training mode and a call on (2, 3, d_model):
    dropout draws the same masks on each of :func:`expect_true_gradients`' calls, so its
    gradients must agree with its values too (COURSE_SPEC: the model trains with dropout)."""
    obj, label = construct(sub, name, *args, dropout=0.5)
    c = Call(label + ".train()", randn(generator(125), 2, 3, args[0]), params="forward")
    return obj, c


def expect_kept_dims(out: Any, c: Call, shapes: tuple) -> None:
    """Size-1 dimensions are kept (COURSE_SPEC): ``out`` (a tensor, or a tuple of them) has
    ``shapes`` (one shape, or one per item); a batch, head or sequence of 1 squeezed away is
    named."""
    items = out if isinstance(out, (tuple, list)) else (out,)
    wanted = shapes if shapes and isinstance(shapes[0], tuple) else (shapes,)
    for got, want in zip(items, wanted, strict=False):
        shape = tuple(getattr(got, "shape", ()))
        if shape != tuple(want) and hasattr(got, "numel") and got.numel() == _numel(want):
            raise fail(
                _(
                    "{call} returned shape {shape}; expected {expected}: a dimension of size 1 "
                    "was dropped."
                ).format(call=c, shape=shape, expected=tuple(want)),
                "squeezed-output",
            )


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def expect_contract_rules(target: Any, c: Call, shapes: tuple, *, output: int | None = 0) -> None:
    """Run ``c`` (inputs with sizes of 1) on ``target``: its output keeps every dimension
    (``shapes``), then a gradient reaches every float input and parameter (a lesson adds
    :func:`expect_true_gradients` with sizes over 1, after its own named gradient checks)."""
    expect_kept_dims(c.run(target), c, shapes)
    expect_gradients(target, c, output=output)


def with_rules(check, rules):
    """The check ``check``, then ``rules(sub)`` (the contract's rules for every exercise, once
    its values are right), marked for the same exercise."""

    def both(sub) -> None:
        with watching():  # calls are independent: a first call made again agrees
            check(sub)
        rules(sub)

    both.__exercise__ = check.__exercise__
    both.__name__, both.__doc__ = check.__name__, check.__doc__
    both.__module__ = check.__module__
    both.contract_rules = rules  # tests/test_grader_checks.py: every check that can has them
    return both


def naming_randomness(check, make):
    """The check ``check``; when it fails with no mistake named, ``make(sub)`` gives a
    ``(target, Call)`` that is called twice: different outputs for the same inputs are dropout
    that is always on (``F.dropout`` defaults to training=True)."""

    def named(sub) -> None:
        try:
            check(sub)
        except CheckFailure as failure:
            if failure.mistake is None:
                try:
                    target, c = make(sub)
                    a, b = c.invoke(target), c.invoke(target)
                except Exception:  # the failure already said what went wrong
                    raise failure from None
                if not _same(a, b):  # the randomness is the finding, not the values it gave
                    failure.mistake = "dropout-always-on"
                    failure.message = _(
                        "{call} gave different outputs on two calls with the same inputs."
                    ).format(call=c)
            raise

    named.__exercise__ = check.__exercise__
    named.__name__, named.__doc__ = check.__name__, check.__doc__
    named.__module__ = check.__module__
    return named


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and bool(torch.equal(a, b))
    return True

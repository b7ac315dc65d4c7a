"""Calling the learner's code and diagnosing what went wrong.

A check describes each call as a :class:`Call`, runs it on the learner's code, and compares the
result with what the contract expects (``autograder.kit.compare``)::

    c = Call("softmax", x, dim=0)
    out = c.run(sub, mutants=MUTANTS)
    expect_close(out, ref_softmax(x, 0), c, mutants=MUTANTS)

``mutants`` is a sequence of ``(mistake_id, fn)``: ``fn`` takes the same arguments as the call and
returns what that mistake would have produced. When the learner's result (or error) is wrong, the
first mutant that reproduces it names the mistake. Mutants are computed lazily, only on failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import torch

from autograder.contract import CONTRACT
from autograder.core.mistakes import get as get_mistake
from autograder.i18n import N_, _, frames
from autograder.kit.exercise import CheckFailure
from autograder.kit.meta import _META_SECTIONS, MetaDataAccess, is_meta_data_access
from autograder.kit.notes import note
from autograder.kit.repeat import attempt, record
from autograder.kit.text import first_line, fmt_value
from autograder.sandbox.host.replies import LearnerError, NotWrittenYet
from autograder.sandbox.protocol import (
    CREATED_ON_DEFAULT_DEVICE,
    INPUT_MODIFIED,
    KEPT_ON_CPU,
    MOVED_TO_CPU,
)

Mutant = tuple[str, Callable[..., Any]]
Mutants = Sequence[Mutant]

# Display names of positional parameters, so messages read "softmax(x: (2, 3), dim=0)": every
# exercise's and every class's method (``"MultiHeadAttention.forward"``) from the contract, and
# the short names the checks call methods by.
PARAMS: dict[str, tuple[str, ...]] = {e.name: e.params for e in CONTRACT} | {
    f"{e.name}.{e.method_name}": e.method_params for e in CONTRACT if e.method
}
PARAMS |= {
    "forward": PARAMS["SelfAttention.forward"],
    "lm.forward": PARAMS["TinyTransformer.forward"],
    "mha.forward": PARAMS["MultiHeadAttention.forward"],
    "append": PARAMS["KVCache.append"],
}


# An ``assert`` for a ValueError: accepted with a note (COURSE_SPEC), in checks and drills alike
ASSERT_ACCEPTED = N_(
    "{call} raised AssertionError, accepted; the course raises ValueError, which `python -O` "
    "does not remove as it removes an assert."
)


class Call:
    """One call of the learner's code, for running it and for naming it in messages."""

    def __init__(self, name: str, *args: Any, params: str | None = None, **kwargs: Any):
        self.name = name  # the exercise, or a display name such as "MultiHeadAttention(8, 2)"
        self.args = args
        self.kwargs = kwargs
        self.params = PARAMS.get(params or name, ())

    def __str__(self) -> str:
        parts = []
        for i, a in enumerate(self.args):
            label = self.params[i] if i < len(self.params) else None
            shown = fmt_value(a, dtype_always=label == "mask")  # a float mask is not a bool one
            parts.append(f"{label}: {shown}" if label and isinstance(a, torch.Tensor) else shown)
        parts += [f"{k}={fmt_value(v, dtype_always=k == 'mask')}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"

    def run(
        self, target: Any, *, mutants: Mutants = (), watch: bool = False, devices: bool = True
    ) -> Any:
        """Run on ``target``: a Submission (calls the function ``self.name``), a remote object
        (calls its forward) or any callable; diagnose and report the learner's errors.
        ``devices=False`` leaves out the check that the tensors it creates follow the inputs'
        device, so that a check can judge what the code computes first."""
        attempt(target, self)  # a failure is about this call (autograder.kit.repeat)
        try:
            value = self.invoke(target, watch=watch, devices=devices)
        except LearnerError as err:
            if _META_SECTIONS.get() and is_meta_data_access(err.message, err.kind):
                raise MetaDataAccess(err.message) from None
            failure = learner_failed(self, err, mutants)
            later = _DEVICES_LAST.get()
            if later and failure.mistake == "created-on-cpu":  # said as when first seen
                raise later[0] from None
            if later is None or err.kind != CREATED_ON_DEFAULT_DEVICE or _on_meta(self):
                raise failure from None
            try:  # what it computed first: a wrong value says more than the device
                value = self.invoke(target, watch=watch, devices=False)
            except LearnerError:
                raise failure from None
            later.append(failure)
        except NotWrittenYet as err:  # torch raises NotImplementedError for data on meta
            if _META_SECTIONS.get() and is_meta_data_access(str(err)):
                raise MetaDataAccess(str(err)) from None
            raise
        record(target, self, value)  # calls are independent (autograder.kit.repeat)
        return value

    def invoke(self, target: Any, *, watch: bool = False, devices: bool = True) -> Any:
        """Run on ``target`` and let the learner's errors through."""
        extra = {} if devices else {"check_devices": False}
        if hasattr(target, "call") and hasattr(target, "defined"):
            return target.call(self.name, *self.args, watch=watch, **extra, **self.kwargs)
        return target(*self.args, watch=watch, **extra, **self.kwargs)

    def expect_error(self, target: Any, kind: str, why: str, mistake: str | None = None) -> None:
        """The call must raise ``kind`` (an exception class name, e.g. "ValueError")."""
        try:
            self.invoke(target)
        except LearnerError as err:
            if err.kind == kind:
                return
            if kind == "ValueError" and err.kind == "AssertionError":
                note(_(ASSERT_ACCEPTED).format(call=self))
                return
            raise fail(
                _("{call} raised {error}: {message}; expected a {kind} ({why}).").format(
                    call=self, error=err.kind, message=first_line(err.message), kind=kind, why=why
                ),
                mistake,
            ) from None
        raise fail(
            _("{call} returned without an error; expected a {kind} ({why}).").format(
                call=self, kind=kind, why=why
            ),
            mistake,
        )


# A tensor made on the CPU (no device=) by a call on CPU inputs: what the call computed is judged
# first, and this failure is raised only if the check passes otherwise (judged_devices_last).
_DEVICES_LAST: ContextVar[list[CheckFailure] | None] = ContextVar("devices_last", default=None)


@contextmanager
def judged_devices_last() -> Iterator[None]:
    """Run a check whose calls' device problems wait until it has judged their values."""
    later: list[CheckFailure] = []
    token = _DEVICES_LAST.set(later)
    try:
        yield
    finally:
        _DEVICES_LAST.reset(token)
    if later:  # (not reached when the check failed: that failure is the one said)
        raise later[0]


def _on_meta(c: Call) -> bool:
    return any(isinstance(a, torch.Tensor) and a.device.type == "meta" for a in _flat(c))


def fail(message: str, mistake: str | None = None) -> CheckFailure:
    """A CheckFailure (``raise fail(...)``). The report adds the mistake's title and hint, so the
    message only says what was checked and shows the smallest failing example."""
    if mistake is not None:
        get_mistake(mistake)  # a KeyError here is a typo in a check
    return CheckFailure(message, mistake=mistake)


# Error predicates: mistakes recognised from the error the learner's code raised.
def is_device_error(err: LearnerError) -> bool:
    if err.kind == CREATED_ON_DEFAULT_DEVICE:  # autograder.sandbox.inside.devices, in the sandbox
        return True
    m = err.message
    devices = ("expected device", "same device", "two devices")
    return any(s in m for s in devices) or ("meta" in m and "cpu" in m)


def is_fp16_overflow(err: LearnerError) -> bool:
    return "without overflow" in err.message


def is_view_error(err: LearnerError) -> bool:
    return "view size is not compatible" in err.message


def is_tensor_truth_value(err: LearnerError) -> bool:
    return "Boolean value of Tensor with more than one value is ambiguous" in err.message


def is_super_init_error(err: LearnerError) -> bool:
    return "before Module.__init__() call" in err.message or (
        err.kind == "AttributeError" and "_modules" in err.message
    )


def is_input_modified(err: LearnerError) -> bool:
    """The sandbox found an argument changed in place (``autograder.sandbox.inside.inplace``)."""
    return err.kind == INPUT_MODIFIED


MATRIX_ONLY_ERRORS = (
    "self must be a matrix",  # torch.mm
    "must be a 3D tensor",  # torch.bmm
    "t() expects a tensor with <= 2 dimensions",  # .t()
    "does not match the length of the desired ordering of dimensions",  # permute(...)
    "number of dims don't match in permute",
    "einsum(): the number of subscripts in the equation",  # 'bid,bjd->bij', no ellipsis
)


def is_matrix_only(err: LearnerError) -> bool:
    """torch.mm, torch.bmm, .t() or a fixed permute on inputs with more (or fewer) dims."""
    return any(s in err.message for s in MATRIX_ONLY_ERRORS)


def is_half_mixed(err: LearnerError) -> bool:
    """A float16/bfloat16 tensor met a float32 one (x.float(), a tensor made without dtype=)."""
    m = err.message
    return ("scalar type" in m or "same dtype" in m) and ("Half" in m or "BFloat16" in m)


ERROR_PREDICATES: tuple[tuple[str, Callable[[LearnerError], bool]], ...] = (
    ("modifies-input", is_input_modified),
    ("matrix-only-op", is_matrix_only),
    ("fill-overflows-fp16", is_fp16_overflow),
    ("view-not-contiguous", is_view_error),
    ("missing-super-init", is_super_init_error),
    ("tensor-truth-value", is_tensor_truth_value),
)


def learner_failed(c: Call, err: LearnerError, mutants: Mutants = ()) -> CheckFailure:
    """The failure for ``c`` raising ``err``, naming the mistake when one explains the error
    (and showing where in the learner's code it was raised when none does)."""
    mistake = diagnose_error(c, err, mutants)
    if err.message in (KEPT_ON_CPU, MOVED_TO_CPU):  # whole sentences (the first raised on 'meta')
        return fail(
            _("{call}: {problem}.").format(call=c, problem=sandbox_said(err.message)), mistake
        )
    if mistake == "modifies-input" or err.kind == CREATED_ON_DEFAULT_DEVICE:
        return fail(
            _("{call} returned, but {problem}.").format(call=c, problem=sandbox_said(err.message)),
            mistake,
        )
    raised = _("{call} raised {error}: {message}")
    said = raised.format(call=c, error=err.kind, message=first_line(err.message).rstrip("."))
    if mistake == "created-on-cpu" and "meta" in err.message:
        return fail(
            _(
                "{raised}. 'meta' is the shapes-only device the check uses to find tensors made "
                "on the CPU."
            ).format(raised=said),
            mistake,
        )
    if mistake == "matrix-only-op":
        return fail(
            _(
                "{raised}. torch.mm and .t() take 2-D tensors only, torch.bmm 3-D only, and a "
                "fixed permute one number of dims; use @ and transpose(-2, -1), which take any."
            ).format(raised=said),
            mistake,
        )
    # a mistake's title is the report's "Looks like: <title> [id]" line, every report has it
    # (check, drill check, a notebook's verdict, feedback): the message does not lead with it too
    shown = raised.format(call=c, error=err.kind, message=first_line(err.message))
    if mistake or not err.traceback:
        return fail(shown, mistake)
    return fail(shown + "\n" + frames("\n".join(err.traceback.splitlines()[-3:])))


# What the sandbox says of an argument changed in place or a tensor made on the CPU
# (sandbox/inside/inplace.py, devices.py), in the current language.
_CREATED = re.compile(
    r"a tensor was created on the CPU by (?P<names>.+?) without device= \(in your code or in a "
    r"function it calls\), whatever device your inputs are on, and your code (?P<what>returned "
    r"it|used it with your inputs' tensors): on a GPU that fails \(create it with "
    r"device=x\.device, or move it with \.to\(x\.device\) first\)",
    re.S,
)
_MODIFIED_END = (
    ": your code changed a tensor it was given, in place (transpose_, masked_fill_, sub_, /= ...); "
    "the caller still needs it as it was"
)
_CHANGES = (
    (
        re.compile(r"the shape of (?P<label>.+) (?P<shape>\(.*\)) became (?P<now>\(.*\))", re.S),
        N_("the shape of {label} {shape} became {now}"),
    ),
    (
        re.compile(r"(?P<label>.+) was transposed or re-strided in place", re.S),
        N_("{label} was transposed or re-strided in place"),
    ),
    (
        re.compile(r"the values of (?P<label>.+) were overwritten", re.S),
        N_("the values of {label} were overwritten"),
    ),
    (
        re.compile(r"(?P<label>.+) was written to in place", re.S),
        N_("{label} was written to in place"),
    ),
)


def sandbox_said(message: str) -> str:
    """The sandbox's sentence about an input changed in place or a tensor created on the CPU,
    translated (it is written in English inside the sandbox); any other text as it is."""
    if message == KEPT_ON_CPU:
        return _(
            "a tensor on the CPU met your inputs on another device: a tensor your module keeps "
            "as a plain attribute (made in __init__, not registered with register_buffer) stays "
            "on the CPU when the module is moved with .to(device); on a GPU that fails "
            "(register it with self.register_buffer, or make it in forward with "
            "device=x.device)"
        )
    if message == MOVED_TO_CPU:
        return _(
            "your code moved a tensor to the CPU (.cpu() or .to('cpu')) while its inputs are on "
            "another device; on a GPU it then returns or mixes CPU tensors (keep every tensor on "
            "the inputs' device)"
        )
    created = _CREATED.fullmatch(message)
    if created:
        sentence = (
            _(
                "a tensor was created on the CPU by {names} without device= (in your code or in "
                "a function it calls), whatever device your inputs are on, and your code "
                "returned it: on a GPU that fails (create it with device=x.device, or move it "
                "with .to(x.device) first)"
            )
            if created["what"] == "returned it"
            else _(
                "a tensor was created on the CPU by {names} without device= (in your code or in "
                "a function it calls), whatever device your inputs are on, and your code used "
                "it with your inputs' tensors: on a GPU that fails (create it with "
                "device=x.device, or move it with .to(x.device) first)"
            )
        )
        return sentence.format(names=created["names"])
    if not message.endswith(_MODIFIED_END):
        return message
    parts = []
    for part in message.removesuffix(_MODIFIED_END).split("; "):
        for pattern, text in _CHANGES:
            found = pattern.fullmatch(part)
            if found:
                parts.append(_(text).format(**found.groupdict()))
                break
        else:
            return message  # a label with "; " in it: left as the sandbox wrote it
    return _(
        "{changes}: your code changed a tensor it was given, in place (transpose_, masked_fill_, "
        "sub_, /= ...); the caller still needs it as it was"
    ).format(changes=_("; ").join(parts))


def diagnose_error(c: Call, err: LearnerError, mutants: Mutants = ()) -> str | None:
    """Which mistake explains the learner's error: a meta-device mismatch, a known error message,
    or a mutant that raises the very same error on the same inputs."""
    if (_on_meta(c) and is_device_error(err)) or err.kind == CREATED_ON_DEFAULT_DEVICE:
        return "created-on-cpu"
    for mistake, predicate in ERROR_PREDICATES:
        if predicate(err):
            return mistake
    for mistake, fn in mutants:
        try:
            fn(*_clone(c.args), **_clone(c.kwargs))
        except Exception as mutant_err:  # noqa: BLE001 - any exception may match
            if type(mutant_err).__name__ == err.kind and first_line(str(mutant_err)) == first_line(
                err.message
            ):
                return mistake
    return "wrong-dtype" if is_half_mixed(err) else None  # after the mutants: a fallback


def _flat(c: Call) -> list[Any]:
    out: list[Any] = []

    def walk(x: Any) -> None:
        if isinstance(x, (tuple, list)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)
        else:
            out.append(x)

    walk(c.args)
    walk(c.kwargs)
    return out


def _clone(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, tuple):
        return tuple(_clone(y) for y in x)
    if isinstance(x, list):
        return [_clone(y) for y in x]
    if isinstance(x, dict):
        return {k: _clone(v) for k, v in x.items()}
    return x


def to_float64(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.double() if x.is_floating_point() and x.device.type != "meta" else x.clone()
    if isinstance(x, tuple):
        return tuple(to_float64(y) for y in x)
    if isinstance(x, list):
        return [to_float64(y) for y in x]
    if isinstance(x, dict):
        return {k: to_float64(v) for k, v in x.items()}
    return x

"""What the judge makes of the sandbox's replies: the learner's values, and its problems.

A reply's value is checked before a check sees it (:func:`from_plain`): plain data only, nested
at most 20 deep, and every tensor on a device the request's inputs were on (a ``meta`` tensor has
a shape but no values: :class:`WrongDevice`, never a skipped comparison). What the learner's code
did wrong reaches the checks as a :class:`LearnerProblem`.
"""

from __future__ import annotations

import math
import os
import re
import signal
from dataclasses import dataclass, field

import torch

from autograder.i18n import _
from autograder.sandbox import protocol
from autograder.sandbox.protocol import ErrorKind, ProtocolError, one_line


class LearnerProblem(Exception):
    """Something the learner's code did, reported as a failure of the exercise being judged."""

    kind: ErrorKind = ErrorKind.LEARNER_ERROR


class LearnerError(LearnerProblem):
    def __init__(self, kind: str, message: str, traceback: str = ""):
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind, self.message, self.traceback = kind, message, traceback


class LearnerTimeout(LearnerProblem):
    """A time limit was hit; ``limit`` says which (``ErrorKind.CPU_TIME`` or ``WALL_CLOCK``)."""

    def __init__(
        self,
        message: str,
        limit: ErrorKind = ErrorKind.CPU_TIME,
        seconds: float = 0,
        cpu: float | None = None,
    ):
        super().__init__(message)
        self.limit = self.kind = limit
        self.seconds, self.cpu = seconds, cpu  # cpu: CPU seconds the process had used, if known

    def busy_machine(self, cpu_limit: float) -> bool:
        """Could a busy machine have caused this hit (worth one retry)? A CPU-time limit, or the
        wall-clock backstop reached by a process that used at least a quarter of its CPU time;
        never one that slept or waited (almost no CPU), nor one whose CPU time is unknown."""
        if self.limit is ErrorKind.CPU_TIME:
            return True
        return self.cpu is not None and self.cpu >= 0.25 * cpu_limit


# The share of the last 10 s in which a runnable task waited for a CPU (Linux's pressure stall
# information, "some avg10", in %; ~0 idle, ~100 with more runnable tasks than cores): busy above.
BUSY_PRESSURE = 20.0
PRESSURE = "/proc/pressure/cpu"


def machine_busy() -> bool:
    """Is the machine busy (a submission that waits on it is not to blame)? Where the kernel has
    pressure stall information, whether tasks waited for a CPU more than :data:`BUSY_PRESSURE` %
    of the last 10 s: counted all the time, so that processes which sleep around the moments the
    load average is sampled (every 5 s) cannot hide from it. Else more runnable processes than
    cores over the last minute (the load average), or no figure at all."""
    try:
        with open(PRESSURE) as f:
            some = f.readline().split()
        return float(dict(x.split("=") for x in some[1:])["avg10"]) >= BUSY_PRESSURE
    except (OSError, ValueError, KeyError, IndexError):  # no PSI (an old kernel, psi=0, not Linux)
        pass
    return not hasattr(os, "getloadavg") or os.getloadavg()[0] >= (os.cpu_count() or 1)


class LearnerCrashed(LearnerProblem):
    kind = ErrorKind.EXITED

    def __init__(self, message: str, *, out_of_memory: bool = False):
        super().__init__(message)
        self.out_of_memory = out_of_memory


class NotJudged(LearnerCrashed):
    """The grader could not judge the learner's code, not the learner's doing: ``grade`` judges it
    again in a fresh sandbox, then names what is still not judged (``result.NOT_JUDGED``)."""


class SandboxDidNotStart(NotJudged):
    """The sandbox could not take the code (twice, the second a new one) before any of it ran."""


def ended(status: int | None) -> LearnerCrashed:
    """Why a learner process ended (its wait status), in the learner's terms."""
    if status is not None and os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        out_of_memory = sig == signal.SIGKILL
        why = (
            _("the sandbox was killed by signal {sig} (most often: it ran out of memory)")
            if out_of_memory
            else _("the sandbox was killed by signal {sig}")
        )
        return LearnerCrashed(why.format(sig=sig), out_of_memory=out_of_memory)
    code = os.WEXITSTATUS(status) if status is not None else "unknown"
    return LearnerCrashed(
        _(
            "your code ended the process (exit status {code}) instead of returning a value; "
            "don't call exit(), sys.exit() or os._exit() in your solution"
        ).format(code=code)
    )


class ForbiddenUsed(LearnerProblem):
    kind = ErrorKind.FORBIDDEN

    def __init__(self, what: list[str]):
        super().__init__(", ".join(what))
        self.what = what


class Tampered(LearnerProblem):
    kind = ErrorKind.TAMPERED


class LearnerOutOfMemory(LearnerProblem):
    kind = ErrorKind.OUT_OF_MEMORY


class NotWrittenYet(LearnerProblem):
    """The learner's function still raises ``NotImplementedError`` (the blank exercise); ``where``:
    the function whose line raised it, as the learner's traceback names it (a blank one that the
    exercise calls: lesson 05's tools cell left empty)."""

    kind = ErrorKind.NOT_WRITTEN

    def __init__(self, message: str, traceback: str = ""):
        super().__init__(message)
        # the last frame's function, or the class of its method ("MultiHeadAttention.__init__")
        last = re.search(r", in (\w+)[\w.<>]*: [^\n]*\Z", traceback)
        self.where = last[1] if last else None


class WrongDevice(LearnerProblem):
    """A returned tensor is on a device the inputs were not on (``meta``: shape, no values)."""


class UnusualTensor(LearnerProblem):
    """A returned tensor of a dtype no exercise returns (quantized, float8, bits...): the checks
    compare bool, integer, floating and complex tensors only; or of more dims than MAX_DIMS
    (torch's comparisons cost the square of the dims before they refuse more than 64: red team
    round 21, 30 s of the judge's CPU for a tensor of 65000 dims of size 1)."""


@dataclass(frozen=True)
class Opaque:
    """A value the sandbox could not send as data (a module, a generator...): its type and repr."""

    type_name: str
    repr: str

    def __str__(self) -> str:
        return f"<{self.type_name}: {self.repr}>" if self.repr else f"<{self.type_name}>"

    def __repr__(self) -> str:  # in a message, as the learner's value would print
        return self.repr or f"<{self.type_name}>"


@dataclass
class Trace:
    """What a ``watch=True`` call did: every ATen op's output shape (``floats``: those of the
    floating-point outputs alone), and the largest one."""

    largest_numel: int = 0
    largest_shape: tuple = ()
    shapes: list[tuple] = field(default_factory=list)
    ops: set[str] = field(default_factory=set)
    floats: list[tuple] = field(default_factory=list)


_ALLOWED_LEAVES = (type(None), bool, int, float, str, torch.dtype)
# Others (quantized, float8, bits8, uint16...) raised inside the comparisons: "the grader
# failed" (red team round 17).
PLAIN_DTYPES = frozenset(getattr(torch, name) for name in protocol.PLAIN_DTYPES)


def from_plain(value, devices: set[str], depth: int = 0):
    """The learner's value as the checks see it; refuses what a reply may not contain."""
    if depth > 20:
        raise ProtocolError("a value nested too deeply")
    if depth == 0 and _tensor_bytes(value) > protocol.MAX_FRAME:
        # views of one storage, each as large as it: the reply is small (torch.save writes the
        # storage once), but what the judge does with each tensor (compare it, send it back in a
        # request, where pickle writes each view's storage again) is not (red team round 19:
        # 1000 views of 1 MiB in a 1 MB reply, 2.4 GB of the judge's memory)
        raise ProtocolError(f"tensors of more than {protocol.MAX_FRAME} bytes in all")
    if isinstance(value, torch.Tensor):
        if type(value) is not torch.Tensor:
            raise ProtocolError("a tensor subclass")
        if vars(value) or value._backward_hooks:
            # attributes of its own shadow its methods (red team round 18: `double` replaced
            # made a comparison with an empty tensor)
            raise ProtocolError("a tensor with attributes of its own")
        if value.layout is not torch.strided:
            raise ProtocolError(f"a tensor of layout {value.layout}")
        if value.numel() * value.element_size() > value.untyped_storage().nbytes():
            # a view with stride 0 over a small storage: torch.equal on it would walk every
            # element it claims, in the judge (red team round 14: 2**62 elements on 4 bytes)
            raise ProtocolError("a tensor with more elements than its storage holds")
        if value.dim() > MAX_DIMS:
            raise UnusualTensor(
                f"returned a tensor of {value.dim()} dims: the exercises return at most {MAX_DIMS}"
            )
        if value.dtype not in PLAIN_DTYPES:
            raise UnusualTensor(
                f"returned a tensor of dtype {value.dtype}: return an ordinary tensor "
                "(float, integer or bool), as the exercise's inputs are"
            )
        if value.device.type not in devices:
            raise WrongDevice(
                f"returned a tensor on the '{value.device.type}' device, but its inputs were on "
                f"{' and '.join(sorted(devices))}"
                + (
                    ": a meta tensor has a shape but no values. Compute the result from the "
                    "inputs, on their device."
                    if value.device.type == "meta"
                    else "."
                )
            )
        return value
    # exact types only, walked with their own methods (a subclass's attributes could shadow them)
    if type(value) is dict:
        if set(value) == {"__opaque__", "repr"} and all(type(v) is str for v in value.values()):
            return Opaque(one_line(value["__opaque__"], 200), one_line(value["repr"], 200))
        if not all(type(k) is str for k in value):
            raise ProtocolError("a dict with keys that are not text")
        return {one_line(k): from_plain(v, devices, depth + 1) for k, v in dict.items(value)}
    if type(value) in (tuple, list):
        return type(value)(from_plain(v, devices, depth + 1) for v in value)
    if type(value) is str:  # learner text: shown on one line wherever a message quotes it
        # (around it, spaces and line breaks are dropped: an answer "B\n" is still "B")
        return value if one_line(value) == value else one_line(value.strip())
    if type(value) in _ALLOWED_LEAVES:
        return value
    raise ProtocolError(f"a value of type {type(value).__name__}")


def _tensors(value):
    """Every tensor ``value`` reaches, each reference once (a reply is bounded: _bounded)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, torch.Tensor):
            yield v
        elif type(v) is dict:
            stack.extend(dict.values(v))
        elif type(v) in (list, tuple):
            stack.extend(v)


def _tensor_bytes(value) -> int:
    """The bytes of the storages of the tensors ``value`` reaches (off the meta device), each
    view counted: pickle writes a view's whole storage (the sandbox sends each tensor as a
    clone, its storage no larger than it). Another layout is refused after."""
    return sum(
        t.untyped_storage().nbytes()
        for t in _tensors(value)
        if type(t) is torch.Tensor and t.layout is torch.strided and t.device.type != "meta"
    )


# What the judge does with a helper's reply: loops over the names it lists, builds tensors of the
# shapes it reports (red team round 19: 125000 names in a gradients reply, minutes of the judge's
# CPU; a parameter of 16384 x 16384 on the meta device, 3.5 GB of its memory). The course's
# modules have dozens of layers and parameters, each of a few thousand values.
HELPER_NAMES = 1024  # entries of any list or dict in a helper's reply
HELPER_VALUES = 2**24  # values of the parameters a describe reply reports, in all


def helper_reply(helper: str | None, value):
    """``value``, the reply of ``apply(helper)`` (``helper`` None: of another request), unless
    it lists more than :data:`HELPER_NAMES` things, holds a tensor where the helper returns none
    or a number that is not a float where it returns floats (the judge does arithmetic on them:
    round 20, a (N, 1) and a (1, N) tensor as two losses made an N x N one), or (``describe``)
    reports parameters of more than :data:`HELPER_VALUES` values or a shape that is none:
    :class:`ProtocolError`."""
    if helper is None:
        return value
    if helper not in _TENSOR_HELPERS and next(_tensors(value), None) is not None:
        raise ProtocolError(f"a {helper} reply holding a tensor")
    if helper in _NUMBERS and not (
        type(value) is list and all(_NUMBERS[helper](row) for row in value)
    ):
        raise ProtocolError(f"a {helper} reply that is not the numbers it returns")
    for key, items in dict.items(value) if type(value) is dict else [("items", value)]:
        if type(items) in (list, dict) and len(items) > HELPER_NAMES:
            raise ProtocolError(f"a {helper} reply listing more than {HELPER_NAMES} {key}")
    if helper == "describe":
        shapes = value.get("parameters", {}) if type(value) is dict else {}
        total = 0
        for shape in dict.values(shapes) if type(shapes) is dict else ():
            if type(shape) is not list or len(shape) > 8 or any(type(n) is not int for n in shape):
                raise ProtocolError("a describe reply with a shape that is not a list of sizes")
            total += math.prod(min(max(n, 0), HELPER_VALUES + 1) for n in shape)
        if total > HELPER_VALUES:
            raise ProtocolError(
                f"a model whose parameters hold {total} values, more than the {HELPER_VALUES} "
                "the checks build: build the layers the exercise asks for, of the sizes given"
            )
    return value


# The helpers (sandbox/inside/remote.py) whose replies hold tensors: a learner's outputs, and
# gradients (the judge reads only whether each is there).
_TENSOR_HELPERS = {"call", "gradients", "last_block_scaled"}
_FLOATS = (float, type(None))
# The helpers that return lists of numbers, by the form of each item: fit's losses (floats);
# derivatives' rows [kind, key, autograd or None, difference, difference, size].
_NUMBERS = {
    "fit": lambda loss: type(loss) is float,
    "derivatives": lambda row: (
        type(row) is list
        and len(row) == 6
        and type(row[0]) is str
        and type(row[1]) in (int, str)
        and type(row[2]) in _FLOATS
        and all(type(x) is float for x in row[3:])
    ),
}


def devices_of(*values) -> set[str]:
    """The devices of the tensors in a request (where results may be): always the CPU."""
    found = {"cpu"}
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, torch.Tensor):
            found.add(v.device.type)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, tuple | list):
            stack.extend(v)
        elif isinstance(v, torch.device):
            found.add(v.type)
        elif isinstance(v, str) and v.split(":")[0] in ("meta", "cuda", "mps", "xpu"):
            found.add(v.split(":")[0])
    return found


MAX_TRACED = 2**16  # shapes or ops a trace may list
MAX_DIMS = 16  # dims of a traced shape, and of a returned tensor


def _size(d) -> int:
    """A traced size: a plain int a tensor can have (red team round 16: ints of 2000 bits made
    each math.prod of a shape cost seconds in the judge)."""
    if type(d) is not int or not 0 <= d < 2**63:
        raise ValueError("not a size")
    return d


def _shape(s) -> tuple:
    if len(s) > MAX_DIMS:
        raise ValueError("too many dims")
    return tuple(_size(d) for d in s)


def _listed(items) -> list:
    if len(items) > MAX_TRACED:
        raise ValueError("too many items")
    return list(items)


def trace_of(raw) -> Trace:
    if raw is None:
        return Trace()
    try:
        ops = _listed(raw["ops"])
        if not all(isinstance(o, str) for o in ops):  # str() of a learner list: gigabytes
            raise TypeError("an op that is not text")
        return Trace(
            _size(raw["largest_numel"]),
            _shape(raw["largest_shape"]),
            [_shape(s) for s in _listed(raw["shapes"])],
            {one_line(o, 200) for o in ops},
            [_shape(s) for s in _listed(raw.get("floats", ()))],
        )
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        raise ProtocolError("a trace that is not one") from e

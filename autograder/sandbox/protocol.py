"""The protocol between the judge and the sandbox, written down once and used by both sides.

Three kinds of process take part (see :mod:`autograder.sandbox` for the picture):

- the **judge** (trusted) sends :class:`Setup`, :class:`Begin` and :class:`Request` messages,
  pickled (the sandbox trusts the judge);
- the **learner process** (one per submission, inside the sandbox) runs the learner's definitions,
  answers ``Setup`` with a ``loaded`` message, and for every :class:`Begin` forks an **exercise
  process**; when that one ends it reports how (an ``exited`` message: wait status, CPU seconds);
- the **exercise process** answers each ``Request`` with a ``reply`` or an ``error`` message, and
  sends an ``event`` message *the moment* learner code calls something forbidden or something the
  sandbox refuses: once written to the socket it cannot be taken back.

Everything the sandbox sends is untrusted: it is ``torch.save`` bytes of plain data that the judge
reads with ``torch.load(weights_only=True)`` (no code runs), then checks with :func:`parse` (every
field's type, every string's length), and every receive has a deadline and a size limit
(:meth:`Channel.receive`). A frame is a 4-byte big-endian length and that many bytes.
"""

from __future__ import annotations

import enum
import io
import math
import os
import re
import select
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Any

# The dtypes a reply tensor may have (torch's names): those the checks' comparisons work on. The
# sandbox sends a tensor of another (quantized, float8, bits8...) as an opaque value, saying its
# dtype; the judge refuses one in a reply (host/replies.py, plain_pickle.py).
PLAIN_DTYPES = (
    *("bool", "uint8", "int8", "int16", "int32", "int64"),
    *("float16", "bfloat16", "float32", "float64", "complex64", "complex128"),
)

HEADER = struct.Struct("!I")
# The judge and a sandbox's warm server (autograder.sandbox.inside.zygote), over its control socket:
COMMAND = struct.Struct("!4si")  # judge -> server: b"load" (with a socket) or b"kill", pid
PLOTS = 1  # b"load"'s number: the learner's code plots, load matplotlib first (worker.load_plots)
RECORD = struct.Struct("!cii")  # server -> judge: R = ready, S = started, X = exited; pid, status
# ... and b"rset": kill every process, empty every writable place; the server answers C (clean).
# ... and b"peak", b"high": the start and end of a measured call (inside/zygote.py, PeakMemory);
# the server answers M and, in the status, how much the learner's processes' peak resident memory
# rose (KiB; 0 at the start), or why it cannot be measured:
PEAK_UNREADABLE = -1  # a process's memory is unreadable (made non-dumpable)
PEAK_ENDED = -2  # a process ended, or started and ended, during the call: its peak is lost
PEAK_UNAVAILABLE = -3  # no /proc here (not Linux): not measured
PEAK_RESET = -4  # a process's peak fell during the call: reset by learner code (clear_refs)
PEAK_UNMEASURED = -5  # the server could not look often enough (a very busy machine): again
PEAK_UNREAPED = -6  # a process had ended before the call and was never waited for (a zombie)
# ... and what the judge tells the learner for each
PEAK_FAILURES = {
    PEAK_UNREADABLE: "your code made its process's memory unreadable (not dumpable)",
    PEAK_ENDED: "a process of your code ended during the call (the grader measures the "
    "memory of the processes it can see: compute in the process you are called in)",
    PEAK_RESET: "your code reset its process's peak memory during the call "
    "(/proc/self/clear_refs); only the grader may",
    PEAK_UNREAPED: "a process your code started had ended and was not waited for (a zombie, "
    "whose memory cannot be measured): compute in the process you are called in",
    PEAK_UNMEASURED: "the machine was too busy for the grader to watch it closely enough, "
    "in every try (not a fault of your code: check it again when the machine is less busy)",
}
# Every writable place in a sandbox: (size in bytes, inodes). bubblewrap sets the size; the server
# adds the inode cap (empty folders cost no bytes) before it drops its last capability.
TMPFS = {"/tmp": (64 * 2**20, 16384), "/dev/shm": (16 * 2**20, 1024)}
# All of the sandbox's /dev, with /dev/shm: the host's own device files, bound in; the server makes
# each bind read-only (still a device: its times are the host's, and 0666 lets anyone set them)
DEVICES = ("null", "zero", "full", "random", "urandom")
MAX_FRAME = 256 * 2**20  # the largest reply the judge reads (a tensor of 64M floats)
MAX_TEXT = 4000  # characters of any message the sandbox sends
MAX_NAMES, MAX_PROBLEMS = 4096, 20  # of a "loaded" message: names defined, problems kept
# The largest pickle (all but the tensors' data) the judge reads of one message: decoding it is
# pure Python, about a second per MiB; tensors' bytes are read at memory speed. A reply's plain
# data (numbers, texts, a trace of op shapes) is a few KiB.
MAX_PICKLE = 256 * 2**10
NOBODY = 65534  # the user the learner's code runs as, in bubblewrap and in the lockdown
# The two problems the sandbox finds around a learner's call (inside/devices.py, inside/inplace.py),
# by the name of the exception the judge sees (``autograder.kit.calling`` explains them).
CREATED_ON_DEFAULT_DEVICE = "CreatedOnDefaultDevice"
INPUT_MODIFIED = "InputModified"

# Seen on the 'meta' device (the checks' stand-in for a GPU): a CPU tensor the call was not given
# meets a meta tensor, or a meta tensor is moved to the CPU. Raised at once, as a GPU would.
KEPT_ON_CPU = (
    "a tensor on the CPU met your inputs on another device: a tensor your module keeps as a "
    "plain attribute (made in __init__, not registered with register_buffer) stays on the CPU "
    "when the module is moved with .to(device); on a GPU that fails (register it with "
    "self.register_buffer, or make it in forward with device=x.device)"
)
MOVED_TO_CPU = (
    "your code moved a tensor to the CPU (.cpu() or .to('cpu')) while its inputs are on another "
    "device; on a GPU it then returns or mixes CPU tensors (keep every tensor on the inputs' "
    "device)"
)


def readable_by_others(path: str) -> bool:
    """Can an unprivileged user (:data:`NOBODY`) reach ``path``? (Python under /root often
    cannot.) Both sides ask: the judge before it starts bubblewrap as that user, the sandbox
    before it hands its working directory to that user."""
    parts = os.path.realpath(path).split(os.sep)
    try:
        return all(
            os.stat(os.sep.join(parts[:i]) or os.sep).st_mode & 0o005
            for i in range(2, len(parts) + 1)
        )
    except OSError:
        return False


class ErrorKind(enum.Enum):
    """Why an exercise (or a submission) failed, as far as the sandbox layer can tell."""

    LEARNER_ERROR = "error"  # the learner's code raised an exception
    NOT_WRITTEN = "not-written"  # it still raises NotImplementedError
    STOPPED = "stopped"  # it raised SystemExit or KeyboardInterrupt
    EXITED = "exited"  # the process ended (os._exit, exit(), a kill of its own)
    OUT_OF_MEMORY = "out-of-memory"  # past the memory limit
    CPU_TIME = "cpu-time"  # past the CPU-time limit
    WALL_CLOCK = "wall-clock"  # past the wall-clock backstop (sleeping or blocked code)
    FORBIDDEN = "forbidden"  # it called what the exercise forbids
    REFUSED = "refused"  # it tried what the sandbox does not allow (event)
    TAMPERED = "tampered"  # it switched off the watch, or sent what is not a reply
    BAD_REPLY = "bad-reply"  # the sandbox sent bytes that are not a valid message


class ProtocolError(Exception):
    """The peer sent something that is not a valid message (a hostile or broken sandbox)."""


class ChannelTimeout(Exception):
    """Nothing complete arrived before the deadline."""


class ChannelClosed(Exception):
    """The other end closed the connection (the process ended)."""


# ---- judge -> sandbox ------------------------------------------------------------------------
@dataclass
class Setup:
    """The learner's code and what each exercise forbids: the learner process's first message."""

    cells: list[tuple[str, str]]
    forbid: dict[str, list[str]]
    memory_limit: int
    load_cpu_limit: float  # CPU seconds to run the definitions
    load_wall_limit: float  # the wall-clock backstop for that


@dataclass
class Begin:
    """Fork an exercise process (on the socket passed with this message) under these limits."""

    exercise: str
    cpu_limit: float
    wall_limit: float
    measures_memory: bool = False  # large blocks mapped from the start (worker._map_large_blocks)

    @classmethod
    def of(cls, exercise, cpu_limit: float, wall_limit: float) -> Begin:
        """For a Gradable (a test's stand-in without ``measures_memory`` measures nothing)."""
        measures = bool(getattr(exercise, "measures_memory", False))
        return cls(exercise.name, cpu_limit, wall_limit, measures)


@dataclass
class Request:
    """One call into the exercise process.

    - ``call``: call the target (``method`` of it, if given) with ``args`` and ``kwargs``, watched
      for forbidden calls, inputs changed in place and tensors created off the inputs' device;
    - ``new``: the same, and keep the result in the sandbox: the reply is its handle (an int);
    - ``get``: the target's value (``method``: an attribute of it), not called;
    - ``ready``: nothing; its reply says the exercise process waits for the next request, a call
      whose peak memory the sandbox's server measures from outside it (``Submission.peak_memory``);
    - ``apply``: ``helper(target, *args, **kwargs)`` where ``helper`` is a function of
      :mod:`autograder.sandbox.inside.remote` (a training loop, a look at a module's layers): code
      of the
      grader's that must run next to the learner's object. Adding one needs no change here.
    """

    op: str  # call | new | get | apply | ready
    target: str | int | None = None  # a learner's global, or a handle from ``new``
    method: str | None = None  # an attribute path on the target ("forward", "ff.0")
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    watch: bool = False  # record every ATen op's output shape (a Trace)
    helper: str | None = (
        None  # apply: a function of autograder.sandbox.inside.remote, given the target
    )
    # call: False skips the check that the tensors it creates follow its inputs' device
    # (autograder.sandbox.inside.devices), so that a check can judge what the code computes first
    devices: bool = True


# ---- sandbox -> judge ------------------------------------------------------------------------
MESSAGE_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "locked": {},  # the learner process is set up: learner code runs from now on
    "loaded": {"defined": list, "problems": list},
    "reply": {"value": object, "trace": (dict, type(None))},
    "error": {"kind": str, "message": str, "traceback": str, "raised_by_learner": bool},
    "event": {"kind": str, "what": str},
    "exited": {"status": int, "cpu": float, "wall_limit_hit": bool},
}


def encode(message: dict) -> bytes:
    """A sandbox message as bytes (``torch.save``: tensors and plain data only)."""
    import torch

    buf = io.BytesIO()
    torch.save(message, buf)
    return buf.getvalue()


# What a line of learner text may not hold: line breaks (a forged "PASS" or "Score" line),
# C0/C1 controls (ESC sequences hide or move text), bidirectional and zero-width formatting, and
# lone surrogates (a file name that is not UTF-8: no file or terminal can hold one).
_NOT_ONE_LINE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069"
    "\u061c\u2060-\u2064\ufeff\ud800-\udfff]"
)
# A line of a learner's traceback, as the sandbox writes it (inside/plain.py, learner_traceback)
_FRAME = re.compile(r"  (cell \d+|[^,]*\.py), line \d+, in .*")


def first_few(names: list[str], sep: str = ", ") -> str:
    """At most three of ``names``, joined, then "…" where there were more (a forged flood of
    names made megabytes of one message: red team round 18)."""
    return sep.join(names[:3]) + (f"{sep}…" if len(names) > 3 else "")


def one_line(text: str, limit: int = MAX_TEXT) -> str:
    """Learner text as the judge shows it, everywhere: on one line, every control character
    (newlines included) written as its escape (``\\n``, ``\\x1b``), at most ``limit`` characters.
    Every text the sandbox sends passes here (:func:`parse`, and the values of replies)."""
    return _NOT_ONE_LINE.sub(lambda m: ascii(m.group())[1:-1], str(text)[:limit])


def _short(text: Any) -> str:
    if not isinstance(text, str):
        raise ProtocolError(f"expected text, got {type(text).__name__}")
    return one_line(text)


def _traceback(text: str) -> str:
    """At most three frames, one line each, in the sandbox's own format (nothing else)."""
    lines = [one_line(line, 400) for line in text.split("\n")[-3:]]
    return "\n".join(line for line in lines if _FRAME.fullmatch(line))


def parse(data: bytes) -> dict:
    """A validated sandbox message, or :class:`ProtocolError` (never anything else)."""
    import torch

    from autograder.sandbox.plain_pickle import NotPlain, check_archive

    try:  # what torch.load would do while reading it: only what torch.save writes
        check_archive(data, MAX_PICKLE, MAX_ITEMS)
    except NotPlain as e:
        raise ProtocolError(str(e)) from None
    try:
        message = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as e:
        raise ProtocolError(f"not a message ({type(e).__name__})") from None
    if type(message) is not dict or message.get("type") not in MESSAGE_FIELDS:
        raise ProtocolError("not a message")
    _bounded(message)
    fields = MESSAGE_FIELDS[message["type"]]
    if set(message) != {"type", *fields}:
        raise ProtocolError(f"a {message['type']} message with the wrong fields")
    for name, kind in fields.items():
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if kind is not object and type(message[name]) not in kinds:  # exact: no subclass
            raise ProtocolError(f"a {message['type']} message whose {name} is not a {kind}")
    for name in ("kind", "message", "what"):
        if name in message:
            message[name] = _short(message[name])
    if "traceback" in message:
        message["traceback"] = _traceback(message["traceback"][:MAX_TEXT])
    if message["type"] == "loaded":
        # a few problems are shown, and names are short: 2**18 references to one 4000-character
        # text would make a gigabyte of copies (red team round 15)
        message["defined"] = [_short(n)[:200] for n in message["defined"][:MAX_NAMES]]
        message["problems"] = [_short(p) for p in message["problems"][:MAX_PROBLEMS]]
    if message["type"] == "exited" and not (
        0 <= message["status"] < 2**16 and math.isfinite(message["cpu"])
    ):
        raise ProtocolError("an exited message with an impossible status or CPU time")
    return message


MAX_ITEMS = 2**18  # values (containers, their items, leaves) a message may hold, shared ones
# counted each time they are reached: a pickle stores a list once however often it is referenced,
# so 2 KB can hold [[...] * 100] nested 20 deep, 10**40 items to walk (red team round 15)
MAX_WEIGHT = 2**21  # the same, each text weighing its length and each int its 64-bit words: one
# 4000-character text referenced 125000 times cost the judge minutes of copies (round 16)


def _bounded(message: Any) -> None:
    """:class:`ProtocolError` when the message reaches more than :data:`MAX_ITEMS` values, or
    values of more than :data:`MAX_WEIGHT` in all (texts by length, ints by size)."""
    stack, seen, weight = [message], 0, 0
    while stack:
        value = stack.pop()
        seen += 1
        if isinstance(value, (str, bytes)):
            weight += len(value)
        elif isinstance(value, int):
            weight += value.bit_length() // 64
        if seen > MAX_ITEMS or seen + weight > MAX_WEIGHT:
            raise ProtocolError(f"a message of more than {MAX_ITEMS} values or {MAX_WEIGHT} units")
        # the types' own methods, on exact types: a subclass's instance attributes could shadow
        # them (red team round 18: an OrderedDict whose keys and values were `set`)
        if type(value) is dict:
            stack.extend(dict.keys(value))
            stack.extend(dict.values(value))
        elif type(value) in (list, tuple):
            stack.extend(value)


# ---- frames --------------------------------------------------------------------------------
class Channel:
    """Length-prefixed frames over a stream socket; the receiving side enforces limits."""

    def __init__(self, sock: socket.socket):
        self.sock = sock

    @classmethod
    def from_fd(cls, fd: int) -> Channel:
        return cls(socket.socket(fileno=fd))

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()

    def send(self, payload: bytes, fds: list[int] | None = None) -> None:
        frame = HEADER.pack(len(payload)) + payload
        if fds:
            sent = socket.send_fds(self.sock, [frame[: HEADER.size]], fds)
            assert sent == HEADER.size
            frame = frame[HEADER.size :]
        self.sock.sendall(frame)

    def _read(self, n: int, deadline: float, fds: list[int] | None) -> bytes:
        chunks, got = [], 0
        while got < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout()
            ready, _, _ = select.select([self.sock], [], [], min(remaining, 3600.0))
            if not ready:
                raise ChannelTimeout()
            try:
                if fds is not None and got == 0:
                    data, new_fds, _, _ = socket.recv_fds(self.sock, n, 4)
                    fds.extend(new_fds)
                else:
                    data = self.sock.recv(min(n - got, 2**20))
            except (ConnectionError, OSError) as e:
                raise ChannelClosed() from e
            if not data:
                raise ChannelClosed()
            chunks.append(data)
            got += len(data)
        return b"".join(chunks)

    def receive(
        self,
        deadline: float = float("inf"),
        limit: int = MAX_FRAME,
        fds: list[int] | None = None,
    ) -> bytes:
        """One frame, complete before ``deadline`` (``time.monotonic()``) and at most ``limit``
        bytes long; file descriptors sent with it are appended to ``fds``."""
        (size,) = HEADER.unpack(self._read(HEADER.size, deadline, fds))
        if size > limit:
            raise ProtocolError(f"a message of {size} bytes (the limit is {limit})")
        return self._read(size, deadline, None) if size else b""


def close_fds_except(*keep: int) -> None:
    """Close every file descriptor above 2 except ``keep`` (nothing else is inherited)."""
    low = 3
    for fd in sorted(k for k in keep if k > 2):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 65536)

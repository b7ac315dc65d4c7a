"""The seam between the judge and the learner's code: a ``Submission``.

The learner's code runs in a child process forked from a warm server that has torch loaded
(:mod:`autograder._zygote`, which imports :mod:`autograder._worker` once), never in the judge. The
judge calls into it through a ``Submission``::

    with Submission(cells, forbid) as sub:
        sub.begin(exercise)                     # its time limit and its forbidden calls apply
        mask = sub.call("causal_mask", 4)       # a tensor, computed in the sandbox
        mha = sub.new("MultiHeadAttention", 8, 2)
        mha.load_state_dict(weights)
        out, w = mha(x, mask=m)

What comes back is plain data (tensors, numbers, containers) read with ``torch.load(...,
weights_only=True)``: a reply can never run code in the judge. A call that raises, runs past the
time limit, dies, or uses what the exercise forbids raises a :class:`LearnerProblem`; after a
timeout or a crash the next exercise gets a fresh sandbox.

Set ``AUTOGRADER_KEEP_SANDBOX=1`` to keep each sandbox's working directory (with ``output.txt``,
what the learner's code printed) for debugging.
"""

from __future__ import annotations

import io
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import torch

from autograder._zygote import RECORD as _RECORD

MEMORY_LIMIT = 3 * 2**30  # bytes the learner's code may allocate on top of torch itself
LOAD_TIMEOUT = 30.0  # seconds to run the learner's definitions
MAX_REPLY = 256 * 2**20


class LearnerProblem(Exception):
    """Something the learner's code did, reported as a failure of the exercise being judged."""


class LearnerError(LearnerProblem):
    def __init__(self, kind: str, message: str, traceback: str = ""):
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind, self.message, self.traceback = kind, message, traceback


class LearnerTimeout(LearnerProblem):
    pass


class LearnerCrashed(LearnerProblem):
    def __init__(self, message: str, *, out_of_memory: bool = False):
        super().__init__(message)
        self.out_of_memory = out_of_memory


class ForbiddenUsed(LearnerProblem):
    def __init__(self, what: list[str]):
        super().__init__(", ".join(what))
        self.what = what


class Tampered(LearnerProblem):
    pass


class LearnerOutOfMemory(LearnerProblem):
    pass


class NotWrittenYet(LearnerProblem):
    """The learner's function still raises ``NotImplementedError`` (the blank exercise)."""


@dataclass(frozen=True)
class Opaque:
    """A value the sandbox could not send as data (a module, a generator...): its type and repr."""

    type_name: str
    repr: str

    def __str__(self) -> str:
        return f"<{self.type_name}: {self.repr}>" if self.repr else f"<{self.type_name}>"


@dataclass
class Trace:
    """What a ``watch=True`` call did: every ATen op's output shape, and the largest one."""

    largest_numel: int = 0
    largest_shape: tuple = ()
    shapes: list[tuple] = field(default_factory=list)
    ops: set[str] = field(default_factory=set)


class Zygote:
    """The judge's handle on the warm process that forks sandboxes (see ``_zygote``)."""

    def __init__(self):
        self._ctrl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "autograder._zygote", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        theirs.close()
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self._started: list[int] = []
        self._exited: dict[int, int] = {}
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        size = _RECORD.size
        buf = b""
        while True:
            try:
                data = self._ctrl.recv(4096)
            except OSError:
                data = b""
            with self._changed:
                if not data:
                    self._started.append(-1)  # wakes a waiting spawn: the zygote is gone
                    self._changed.notify_all()
                    return
                buf += data
                while len(buf) >= size:
                    kind, pid, status = _RECORD.unpack(buf[:size])
                    buf = buf[size:]
                    if kind == b"S":
                        self._started.append(pid)
                    else:
                        self._exited[pid] = status
                self._changed.notify_all()

    def alive(self) -> bool:
        return self._proc.poll() is None

    def spawn(self, timeout: float = 120.0) -> tuple[int, Connection]:
        """A new sandbox process and the judge's end of its connection."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._lock:
            socket.send_fds(self._ctrl, [b"spawn"], [theirs.fileno()])
            theirs.close()
            with self._changed:
                if not self._changed.wait_for(lambda: self._started, timeout):
                    raise RuntimeError("the sandbox server did not answer")
                pid = self._started.pop(0)
        if pid < 0:
            raise RuntimeError("the sandbox server stopped")
        return pid, Connection(ours.detach())

    def exit_status(self, pid: int, timeout: float = 2.0) -> int | None:
        """The wait status of a sandbox that has ended (None if it is not known in time)."""
        with self._changed:
            self._changed.wait_for(lambda: pid in self._exited, timeout)
            return self._exited.pop(pid, None)


_zygote_lock = threading.Lock()
_zygote: Zygote | None = None


def zygote() -> Zygote:
    """This process's sandbox server, started on first use (and again if it died)."""
    global _zygote
    with _zygote_lock:
        if _zygote is None or not _zygote.alive():
            _zygote = Zygote()
        return _zygote


def warm_up() -> None:
    """Start the sandbox server now (torch loads there once) so the first check answers fast."""
    zygote()


def _from_plain(value):
    if isinstance(value, dict):
        if "__opaque__" in value and set(value) == {"__opaque__", "repr"}:
            return Opaque(str(value["__opaque__"]), str(value["repr"]))
        return {k: _from_plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_from_plain(v) for v in value)
    if isinstance(value, list):
        return [_from_plain(v) for v in value]
    return value


class Submission:
    """A learner's code, loaded in a sandbox, callable from the judge."""

    def __init__(
        self,
        cells: list[tuple[str, str]],
        forbid: dict[str, list[str]],
        *,
        memory_limit: int = MEMORY_LIMIT,
        load_timeout: float = LOAD_TIMEOUT,
    ):
        self._setup = {"cells": cells, "forbid": forbid, "memory_limit": memory_limit}
        self._load_timeout = load_timeout
        self._conn = self._workdir = None
        self.exercise = None
        self.deadline = float("inf")
        self.last_trace = Trace()
        self._start()

    # -- the sandbox's life --------------------------------------------------------------------
    def _start(self) -> None:
        self._workdir = tempfile.mkdtemp(prefix="autograder-")
        self._zygote = zygote()
        self._pid, self._conn = self._zygote.spawn()
        self._conn.send_bytes(pickle.dumps({**self._setup, "workdir": self._workdir}))
        self.deadline = time.monotonic() + self._load_timeout
        try:
            reply = self._receive()
        except LearnerTimeout as e:
            raise LearnerTimeout(
                f"running your definitions took more than {self._load_timeout:.0f} s "
                "(a loop or heavy computation at the top level of a cell?)"
            ) from e
        if not reply.get("loaded"):
            raise LearnerCrashed("the sandbox did not start properly")
        self.defined = frozenset(str(n) for n in reply.get("defined", []))
        self.problems = [str(p) for p in reply.get("problems", [])]

    def _kill(self) -> None:
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._kill()
            self._zygote.exit_status(self._pid, timeout=1.0)
        if self._workdir and not os.environ.get("AUTOGRADER_KEEP_SANDBOX"):
            shutil.rmtree(self._workdir, ignore_errors=True)
        self._conn = self._workdir = None

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> Submission:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _death(self) -> LearnerCrashed:
        status = self._zygote.exit_status(self._pid)
        self._conn.close()
        self._conn = None
        self._stop()
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            out_of_memory = sig == signal.SIGKILL
            why = f"the sandbox was killed by signal {sig}"
            if out_of_memory:
                why += " (most often: it ran out of memory)"
            return LearnerCrashed(why, out_of_memory=out_of_memory)
        code = os.WEXITSTATUS(status) if status is not None else "unknown"
        return LearnerCrashed(
            f"your code ended the process (exit status {code}) instead of returning a value; "
            "don't call exit(), sys.exit() or os._exit() in your solution"
        )

    def _receive(self) -> dict:
        remaining = max(0.0, self.deadline - time.monotonic())
        if not self._conn.poll(remaining):
            self._stop()
            raise LearnerTimeout("your code did not finish within the time limit")
        try:
            data = self._conn.recv_bytes(MAX_REPLY)
        except (EOFError, OSError) as e:
            raise self._death() from e
        try:
            reply = torch.load(io.BytesIO(data), weights_only=True)
        except Exception as e:
            self._stop()
            raise Tampered("the sandbox sent something that is not a reply") from e
        if not isinstance(reply, dict):
            self._stop()
            raise Tampered("the sandbox sent something that is not a reply")
        return reply

    # -- the judge's side ------------------------------------------------------------------------
    def begin(self, exercise) -> None:
        """Judge ``exercise`` next: its time limit and forbidden calls apply from now on."""
        if self._conn is None:
            self._start()
        self.exercise = exercise
        self.deadline = time.monotonic() + exercise.time_limit

    def defines(self, name: str) -> bool:
        return name in self.defined

    def _request(self, req: dict) -> Any:
        if self._conn is None:
            raise LearnerCrashed("the sandbox had already stopped")
        req["exercise"] = getattr(self.exercise, "name", None)
        try:
            self._conn.send_bytes(pickle.dumps(req))  # plain pickle: tensors go by value
        except (OSError, EOFError) as e:
            raise self._death() from e
        reply = self._receive()
        if "forbidden" in reply:
            raise ForbiddenUsed([str(w) for w in reply["forbidden"]])
        if "tampered" in reply:
            raise Tampered(str(reply["tampered"]))
        if "error" in reply:
            err = reply["error"] if isinstance(reply["error"], dict) else {}
            kind, message = str(err.get("kind", "Error")), str(err.get("message", ""))
            if kind == "MemoryError" or "can't allocate memory" in message:
                raise LearnerOutOfMemory(message.splitlines()[0][:200] if message else kind)
            if kind == "NotImplementedError" and err.get("raised_by_learner"):
                raise NotWrittenYet(message)
            if kind in ("SystemExit", "KeyboardInterrupt"):
                raise LearnerCrashed(
                    f"your code raised {kind} to stop the grader instead of returning a value; "
                    "don't call exit() or sys.exit() in your solution"
                )
            raise LearnerError(kind, message, str(err.get("traceback", "")))
        trace = reply.get("trace")
        if isinstance(trace, dict):
            self.last_trace = Trace(
                int(trace["largest_numel"]),
                tuple(trace["largest_shape"]),
                [tuple(s) for s in trace["shapes"]],
                set(trace["ops"]),
            )
        return _from_plain(reply.get("value"))

    def call(self, name: str, *args, watch: bool = False, **kwargs) -> Any:
        """Call the learner's function ``name`` in the sandbox and return its value."""
        return self._request(
            {"op": "call", "target": name, "args": args, "kwargs": kwargs, "watch": watch}
        )

    def get(self, name: str) -> Any:
        """The value of the learner's global ``name`` (None if it is not defined)."""
        return self._request({"op": "get", "target": name})

    def new(self, name: str, *args, **kwargs) -> RemoteObject:
        """Construct the learner's class ``name`` in the sandbox."""
        handle = self._request({"op": "new", "target": name, "args": args, "kwargs": kwargs})
        return RemoteObject(self, int(handle), name)


class RemoteObject:
    """An object (usually an ``nn.Module``) living in the sandbox."""

    def __init__(self, sub: Submission, handle: int, name: str):
        self._sub, self._handle, self.name = sub, handle, name

    def __call__(self, *args, watch: bool = False, **kwargs) -> Any:
        return self._sub._request(
            {"op": "call", "target": self._handle, "args": args, "kwargs": kwargs, "watch": watch}
        )

    def method(self, name: str, *args, watch: bool = False, **kwargs) -> Any:
        return self._sub._request(
            {
                "op": "call",
                "target": self._handle,
                "method": name,
                "args": args,
                "kwargs": kwargs,
                "watch": watch,
            }
        )

    def load_state_dict(self, state_dict: dict[str, torch.Tensor]) -> None:
        self._sub._request(
            {"op": "load_state_dict", "target": self._handle, "state_dict": dict(state_dict)}
        )

    def describe(self) -> dict:
        return self._sub._request({"op": "describe", "target": self._handle})

    def fit(self, tokens: torch.Tensor, steps: int, lr: float) -> list[float]:
        return self._sub._request(
            {"op": "fit", "target": self._handle, "tokens": tokens, "steps": steps, "lr": lr}
        )

    def to(self, dtype_or_device) -> None:
        self.method("to", dtype_or_device)

    def train(self, mode: bool = True) -> None:
        self.method("train", mode)

    def eval(self) -> None:
        self.method("eval")

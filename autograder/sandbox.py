"""The seam between the judge and the learner's code: a ``Submission``, run in a sandbox.

The learner's code never runs in the judge. It runs in a **sandbox**: a warm server
(:mod:`autograder._zygote`, torch already imported) started inside `bubblewrap
<https://github.com/containers/bubblewrap>`_ with its own user, pid, network, IPC, UTS and mount
namespaces, as an unprivileged user, on a read-only filesystem that holds only Python, the
installed packages and the sandbox's own modules (not the course's reference, the checks, the
solutions, the tests or anybody's submission), plus one private working directory on a size-capped
tmpfs. Every process in it dies with the judge (``--die-with-parent``) and with the sandbox (its
pid namespace). See ``SECURITY.md`` for what is and is not protected.

The judge calls into the learner's code through a ``Submission``::

    with Submission(cells, forbid) as sub:
        sub.begin(exercise)                     # a fresh exercise process, under its limits
        mask = sub.call("causal_mask", 4)       # a tensor, computed in the sandbox
        mha = sub.new("MultiHeadAttention", 8, 2)
        mha.load_state_dict(weights)
        out, w = mha(x, mask=m)

Each submission is one learner process (forked from the server) that runs the learner's
definitions once; each exercise is one process forked from that one, so an exercise's limits and
crashes are its own. The limits count the exercise process's own CPU time (``RLIMIT_CPU``): a busy
machine does not turn correct code into a timeout. A generous wall-clock backstop
(:func:`wall_backstop`) stops code that sleeps or blocks. A call that raises, runs past a limit,
dies, or uses what the exercise forbids raises a :class:`LearnerProblem`.

What comes back is validated plain data (:mod:`autograder.protocol`): a reply can never run code
in the judge, every receive has a deadline and a size limit, and a tensor on a device the request's
inputs were not on (a ``meta`` tensor has a shape but no values) is a failure, never a skipped
comparison.

``check`` uses one sandbox per judging process (:func:`default_server`); ``grade`` gives each
notebook its own (``with isolated(): ...``). Where bubblewrap is missing (a learner's own laptop),
:func:`strong_isolation_available` is False: ``check`` still works with process isolation only and
says so once; :func:`isolated` refuses unless ``allow_weak=True``.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from autograder._zygote import COMMAND as _COMMAND
from autograder._zygote import RECORD as _RECORD
from autograder.contract import REFERENCE_MODULES
from autograder.protocol import (
    MAX_FRAME,
    Begin,
    Channel,
    ChannelClosed,
    ChannelTimeout,
    ErrorKind,
    ProtocolError,
    Request,
    Setup,
    parse,
)

MEMORY_LIMIT = 3 * 2**30  # bytes the learner's code may allocate on top of torch itself
LOAD_TIMEOUT = 30.0  # CPU seconds to run the learner's definitions
TMPFS_SIZE = 64 * 2**20  # the sandbox's only writable place
NOBODY = 65534
GRACE = 5.0  # seconds the judge waits beyond the sandbox's own backstop before it kills it
MAX_EVENTS = 1000

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
# What the sandbox holds of this repository: its own modules, and the course's helpers (the
# lessons' set-up cells import them). Nothing else: no reference, no checks, no tests.
SANDBOX_FILES = {
    "autograder/__init__.py": PACKAGE / "__init__.py",
    "autograder/_zygote.py": PACKAGE / "_zygote.py",
    "autograder/_worker.py": PACKAGE / "_worker.py",
    "autograder/protocol.py": PACKAGE / "protocol.py",
    "autograder/_inplace.py": PACKAGE / "_inplace.py",  # the worker's two checks
    "autograder/_devices.py": PACKAGE / "_devices.py",  # around each learner call
    "course_lib/__init__.py": PACKAGE / "_course_lib_stub.py",
    # Every course_lib module that holds no exercise's reference: the helpers (data, viz...).
    **{
        f"course_lib/{path.name}": path
        for path in sorted((ROOT / "course_lib").glob("*.py"))
        if path.stem != "__init__" and f"course_lib.{path.stem}" not in REFERENCE_MODULES
    },
}


def _font_cache() -> str | None:
    """A readable copy of matplotlib's font list (the judge's own), so that each sandbox does not
    rebuild it (seconds of CPU): the server copies it into its tmpfs before importing matplotlib."""
    if "fonts" not in _probe:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        source = os.environ.get("MPLCONFIGDIR") or os.path.join(home, "matplotlib")
        found = sorted(Path(source).glob("fontlist-*.json")) if os.path.isdir(source) else []
        copy = None
        if found:
            copy = tempfile.mkdtemp(prefix="autograder-fonts-")
            os.chmod(copy, 0o755)
            for f in found:
                shutil.copyfile(f, os.path.join(copy, f.name))
                os.chmod(os.path.join(copy, f.name), 0o644)
        _probe["fonts"] = copy
    return _probe["fonts"]


def wall_backstop(cpu_limit: float) -> float:
    """Wall-clock seconds before code under a ``cpu_limit`` is stopped anyway (it sleeps, or
    waits): generous, so that on a machine busy with 3 others per core the CPU limit decides."""
    return 4 * cpu_limit + 10


# ---- what the judge is told --------------------------------------------------------------------
class LearnerProblem(Exception):
    """Something the learner's code did, reported as a failure of the exercise being judged."""

    kind: ErrorKind = ErrorKind.LEARNER_ERROR


class LearnerError(LearnerProblem):
    def __init__(self, kind: str, message: str, traceback: str = ""):
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind, self.message, self.traceback = kind, message, traceback


class LearnerTimeout(LearnerProblem):
    """A time limit was hit; ``limit`` says which (``ErrorKind.CPU_TIME`` or ``WALL_CLOCK``)."""

    def __init__(self, message: str, limit: ErrorKind = ErrorKind.CPU_TIME, seconds: float = 0):
        super().__init__(message)
        self.limit, self.seconds = limit, seconds
        self.kind = limit


class LearnerCrashed(LearnerProblem):
    kind = ErrorKind.EXITED

    def __init__(self, message: str, *, out_of_memory: bool = False):
        super().__init__(message)
        self.out_of_memory = out_of_memory


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
    """The learner's function still raises ``NotImplementedError`` (the blank exercise)."""

    kind = ErrorKind.NOT_WRITTEN


class WrongDevice(LearnerProblem):
    """A returned tensor is on a device the inputs were not on (``meta``: shape, no values)."""


class SandboxUnavailable(RuntimeError):
    """The strong sandbox was required and cannot run here (the CLI exits 2 with this message)."""


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


# ---- the sandbox: bubblewrap around a warm server ------------------------------------------------
_probe: dict[str, Any] = {}


def _readable_by_others(path: str) -> bool:
    """Can an unprivileged user reach ``path``? (Python under /root often cannot.)"""
    parts = os.path.realpath(path).split(os.sep)
    try:
        return all(
            os.stat(os.sep.join(parts[:i]) or os.sep).st_mode & 0o005
            for i in range(2, len(parts) + 1)
        )
    except OSError:
        return False


def _libraries() -> list[str]:
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(os.path.realpath(paths[k]) for k in ("purelib", "platlib")))


def _library_mounts() -> dict[str, str]:
    """Where the sandbox sees each folder of installed packages: under /sandbox, never at its own
    path, which may lie under /tmp (a checkout's venv in /tmp), where the sandbox's tmpfs is."""
    return {lib: f"/sandbox/packages/{i}" for i, lib in enumerate(_libraries())}


def _interpreter() -> tuple[str, list[str], int | None]:
    """The Python the sandbox runs, the folders it needs, and the host user to run it as.

    Learner code runs as uid 65534 inside the sandbox in every case. Outside it, the sandbox runs
    as the judge's own user, or, when the judge is root, as ``nobody`` too where the interpreter
    and the packages are readable by it (a process-count limit means nothing for root): if this
    Python lives under a private folder (pyenv under /root), the system's Python of the same
    version serves, with the same packages.
    """
    base = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    libs = _libraries()
    prefix = os.path.realpath(sys.base_prefix)
    if os.geteuid() != 0:
        return base, [prefix, *libs], None
    if all(map(_readable_by_others, [base, sysconfig.get_paths()["stdlib"], *libs])):
        return base, [prefix, *libs], NOBODY
    system = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    if os.path.exists(system) and all(map(_readable_by_others, [system, *libs])):
        return system, libs, NOBODY
    return base, [prefix, *libs], None


def _bwrap_command(python: str, folders: list[str], boot: str) -> list[str]:
    cmd = [
        "bwrap",
        "--unshare-all",  # user, pid, network, IPC, UTS and cgroup namespaces
        "--die-with-parent",
        "--new-session",
        "--uid", str(NOBODY), "--gid", str(NOBODY),
        "--hostname", "sandbox",
        "--cap-drop", "ALL",
        "--ro-bind", "/usr", "/usr",
    ]  # fmt: skip
    for top in ("lib", "lib64", "lib32", "bin", "sbin"):
        host = Path("/") / top
        if host.is_symlink():
            cmd += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            cmd += ["--ro-bind", str(host), str(host)]
    cmd += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    mounts = _library_mounts()
    for folder in dict.fromkeys(folders):
        if folder in mounts:
            cmd += ["--ro-bind", folder, mounts[folder]]
        elif not folder.startswith("/usr/"):
            cmd += ["--ro-bind", folder, folder]
    for dest, src in SANDBOX_FILES.items():
        cmd += ["--ro-bind", str(src), f"/sandbox/{dest}"]
    fonts = _font_cache()
    if fonts:
        cmd += ["--ro-bind", fonts, "/sandbox/fonts"]
    cmd += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(TMPFS_SIZE), "--tmpfs", "/tmp",
        "--remount-ro", "/",
        "--clearenv",
        "--setenv", "HOME", "/tmp",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "MPLBACKEND", "Agg",
        "--setenv", "MPLCONFIGDIR", "/tmp/.matplotlib",
        "--setenv", "OMP_NUM_THREADS", "1",
        "--chdir", "/tmp",
        python, "-I", "-S", "-B", "-c", boot,
    ]  # fmt: skip
    return cmd


def _boot(code: str, sandbox: str = "/sandbox", libraries: list[str] | None = None) -> str:
    """The sandbox's ``python -c``: its own modules and the installed packages, nothing else."""
    path = [sandbox, *(_libraries() if libraries is None else libraries)]
    return f"import sys; sys.path[:0] = {path!r}\n{code}"


def _strong_boot(code: str) -> str:
    """``_boot`` inside bubblewrap, where the packages are mounted under /sandbox."""
    return _boot(code, libraries=list(_library_mounts().values()))


def _as_user(user: int | None) -> dict:
    """``subprocess`` arguments that start the sandbox as ``user`` (None: as ourselves)."""
    return {} if user is None else {"user": user, "group": user, "extra_groups": []}


def strong_isolation_available() -> bool:
    """Can learner code run in the OS-level sandbox (bubblewrap) here? Probed once."""
    if "strong" not in _probe:
        ok = False
        if shutil.which("bwrap") and sys.platform.startswith("linux"):
            python, folders, user = _interpreter()
            # numpy: the installed packages must be there too, not only the sandbox's modules
            cmd = _bwrap_command(python, folders, _strong_boot("import autograder.protocol, numpy"))
            try:
                proc = subprocess.run(cmd, capture_output=True, timeout=120, **_as_user(user))
                ok = proc.returncode == 0
                _probe["why"] = proc.stderr.decode(errors="replace").strip()[-300:]
            except (OSError, subprocess.SubprocessError) as e:
                _probe["why"] = str(e)
        else:
            _probe["why"] = "bubblewrap (bwrap) is not installed"
        _probe["strong"] = ok
    return _probe["strong"]


WEAK_NOTE = (
    "note: the grader's OS-level sandbox (bubblewrap) is not available here ({why}); your code "
    "runs in a separate process only. That is fine for checking your own work; an instructor "
    "grading a class needs bubblewrap (Linux: apt-get install bubblewrap)."
)
_noted = False


def _note_weak() -> None:
    global _noted
    if not _noted:
        _noted = True
        print(WEAK_NOTE.format(why=_probe.get("why") or "unknown reason"), file=sys.stderr)


class Server:
    """The judge's handle on one sandbox: bubblewrap around the warm server (``_zygote``)."""

    def __init__(self, *, strong: bool | None = None):
        if strong is None:
            strong = strong_isolation_available()
        elif strong and not strong_isolation_available():
            raise SandboxUnavailable(
                "the OS-level sandbox cannot run here: "
                f"{_probe.get('why') or 'bubblewrap failed'}. Install bubblewrap "
                "(apt-get install bubblewrap) to grade a class safely."
            )
        self.strong = strong
        self._ctrl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fd = theirs.fileno()
        self._layout = None
        if strong:
            python, folders, user = _interpreter()
            boot = _strong_boot(f"from autograder._zygote import serve; serve({fd}, True)")
            cmd = _bwrap_command(python, folders, boot)
        else:
            _note_weak()
            user = None
            self._layout = tempfile.mkdtemp(prefix="autograder-lib-")
            for dest, src in SANDBOX_FILES.items():
                os.makedirs(os.path.join(self._layout, os.path.dirname(dest)), exist_ok=True)
                os.symlink(src, os.path.join(self._layout, dest))
            hidden = (str(ROOT),)
            serve = f"from autograder._zygote import serve; serve({fd}, False, {hidden!r})"
            boot = _boot(serve, self._layout)
            cmd = [sys.executable, "-I", "-S", "-B", "-c", boot]
        env = None if strong else {**os.environ, "MPLBACKEND": "Agg"}
        self.user = user
        self._proc = subprocess.Popen(
            cmd,
            pass_fds=[fd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
            **_as_user(user),
        )
        theirs.close()
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self._started: list[int] = []
        self._exited: dict[int, int] = {}
        self._gone = False
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
                    self._gone = True
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
        return self._proc.poll() is None and not self._gone

    def spawn(self, timeout: float = 120.0) -> tuple[int, Channel]:
        """A new learner process and the judge's end of its connection."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._lock:
            try:
                socket.send_fds(self._ctrl, [_COMMAND.pack(b"load", 0)], [theirs.fileno()])
            except OSError as e:
                raise RuntimeError("the sandbox server stopped") from e
            finally:
                theirs.close()
            with self._changed:
                if not self._changed.wait_for(lambda: self._started or self._gone, timeout):
                    raise RuntimeError("the sandbox server did not answer")
                if not self._started:
                    raise RuntimeError("the sandbox server stopped")
                pid = self._started.pop(0)
        return pid, Channel(ours)

    def kill(self, pid: int) -> None:
        with contextlib.suppress(OSError):
            self._ctrl.sendall(_COMMAND.pack(b"kill", pid))

    def exit_status(self, pid: int, timeout: float = 2.0) -> int | None:
        """The wait status of a learner process that has ended (None if not known in time)."""
        with self._changed:
            self._changed.wait_for(lambda: pid in self._exited or self._gone, timeout)
            return self._exited.pop(pid, None)

    def close(self) -> None:
        """End the sandbox and everything in it."""
        if self._proc.returncode is not None:
            return
        with contextlib.suppress(OSError):
            self._ctrl.shutdown(socket.SHUT_RDWR)
        self._ctrl.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait()
        if self._layout:
            shutil.rmtree(self._layout, ignore_errors=True)


_server_lock = threading.Lock()
_default: Server | None = None
_local = threading.local()
_kept: list[Server] = []  # the sandboxes isolated(fresh=False) keeps, for close_kept()


def default_server() -> Server:
    """This process's sandbox (for ``check``), started on first use (and again if it died)."""
    global _default
    with _server_lock:
        if _default is None or not _default.alive():
            if _default is not None:
                _default.close()
            _default = Server()
        return _default


def current_server() -> Server:
    """The sandbox the calling thread's submissions run in."""
    own = getattr(_local, "server", None)
    if own is not None and not own.alive():  # killed by its learner: a fresh one, just as strict
        own.close()
        own = _local.server = Server(strong=own.strong)
    return own or default_server()


@contextlib.contextmanager
def isolated(*, allow_weak: bool = False, fresh: bool = True):
    """The sandbox for every submission judged in this thread inside the block.

    With ``fresh`` (the default), a new sandbox, ended with the block: ``grade`` gives each
    notebook its own. With ``fresh=False``, this thread's own sandbox, kept for its next block:
    never used by two submissions at once, and reset between them (every process killed, the
    tmpfs emptied), which saves starting one per notebook (seconds of CPU each).

    Without bubblewrap it raises :class:`SandboxUnavailable`, unless ``allow_weak`` (the
    instructor accepted the risk: process isolation only).
    """
    strong = None if allow_weak else True
    kept = getattr(_local, "kept", None)
    if fresh or kept is None or not kept.alive() or (strong and not kept.strong):
        if not fresh and kept is not None:
            kept.close()
        server = Server(strong=strong)
        if not fresh:
            _local.kept = server
            with _server_lock:
                _kept.append(server)
    else:
        server = kept
    previous = getattr(_local, "server", None)
    _local.server = server
    try:
        yield server
    finally:
        _local.server = previous
        if fresh:
            server.close()


def close_kept() -> None:
    """End every sandbox kept by ``isolated(fresh=False)`` (when a class is graded: their threads
    are done, and nothing else would end them before this process exits)."""
    with _server_lock:
        servers, _kept[:] = list(_kept), []
    for server in servers:
        server.close()


def warm_up() -> None:
    """Start the sandbox now (torch loads there once) so the first check answers fast."""
    default_server()


# ---- the judge's side ----------------------------------------------------------------------------
_ALLOWED_LEAVES = (type(None), bool, int, float, str, torch.dtype)


def _from_plain(value, devices: set[str], depth: int = 0):
    """The learner's value as the checks see it; refuses what a reply may not contain."""
    if depth > 20:
        raise ProtocolError("a value nested too deeply")
    if isinstance(value, torch.Tensor):
        if type(value) is not torch.Tensor:
            raise ProtocolError("a tensor subclass")
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
    if isinstance(value, dict):
        if "__opaque__" in value and set(value) == {"__opaque__", "repr"}:
            return Opaque(str(value["__opaque__"])[:200], str(value["repr"])[:200])
        if not all(isinstance(k, str) for k in value):
            raise ProtocolError("a dict with keys that are not text")
        return {k: _from_plain(v, devices, depth + 1) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return type(value)(_from_plain(v, devices, depth + 1) for v in value)
    if isinstance(value, _ALLOWED_LEAVES):
        return value
    raise ProtocolError(f"a value of type {type(value).__name__}")


def _devices(*values) -> set[str]:
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


def _trace(raw) -> Trace:
    if raw is None:
        return Trace()
    try:
        return Trace(
            int(raw["largest_numel"]),
            tuple(int(d) for d in raw["largest_shape"]),
            [tuple(int(d) for d in s) for s in raw["shapes"]],
            {str(o) for o in raw["ops"]},
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ProtocolError("a trace that is not one") from e


class Submission:
    """A learner's code, loaded in a sandbox, callable from the judge."""

    def __init__(
        self,
        cells: list[tuple[str, str]],
        forbid: dict[str, list[str]],
        *,
        memory_limit: int = MEMORY_LIMIT,
        load_timeout: float = LOAD_TIMEOUT,
        server: Server | None = None,
    ):
        self._setup = Setup(
            list(cells), dict(forbid), memory_limit, load_timeout, wall_backstop(load_timeout)
        )
        self._server = server
        self._chan: Channel | None = None
        self._ex: Channel | None = None
        self.exercise = None
        self.last_trace = Trace()
        self._start()

    # -- the learner process ---------------------------------------------------------------------
    def _start(self) -> None:
        server = self._server or current_server()
        self._live_server = server
        try:
            self._pid, self._chan = server.spawn()
        except RuntimeError as e:
            raise LearnerCrashed(f"the sandbox did not start ({e})") from e
        self._chan.send(pickle.dumps(self._setup))
        deadline = time.monotonic() + self._setup.load_wall_limit
        try:
            message = parse(self._chan.receive(deadline, MAX_FRAME))
            if message["type"] != "loaded":
                raise ProtocolError("not a loaded message")
        except ChannelTimeout:
            self._stop()
            raise LearnerTimeout(
                f"running your definitions was still not done after "
                f"{self._setup.load_wall_limit:.0f} s of wall-clock time (the backstop against "
                "code that sleeps or waits)",
                ErrorKind.WALL_CLOCK,
            ) from None
        except ChannelClosed:  # the learner process ended while loading
            self._chan.close()
            self._chan = None
            status = self._live_server.exit_status(self._pid, timeout=5.0)
            if status is not None and os.WIFSIGNALED(status):
                if os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
                    raise LearnerTimeout(
                        f"running your definitions used more than {self._setup.load_cpu_limit:.0f}"
                        " s of CPU time (a loop or heavy computation at the top level of a cell?)",
                        ErrorKind.CPU_TIME,
                    ) from None
            raise self._ended(status, "") from None
        except ProtocolError as e:
            self._stop()
            raise Tampered(f"the sandbox sent something that is not a reply ({e})") from None
        self.defined = frozenset(message["defined"])
        self.problems = list(message["problems"])

    def _stop(self) -> None:
        """End the learner process, and wait until its sandbox has cleaned up after it (every
        process it left killed, the tmpfs emptied) before anything else runs there."""
        if self._ex is not None:
            self._ex.close()
            self._ex = None
        if self._chan is not None:
            self._chan.close()
            self._chan = None
            self._live_server.kill(self._pid)
            if self._live_server.exit_status(self._pid, timeout=30.0) is None:
                self._live_server.close()  # it does not answer: a fresh sandbox next time

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> Submission:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def _ended(status: int | None, what: str) -> LearnerCrashed:
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

    # -- one exercise process per exercise -------------------------------------------------------
    def begin(self, exercise) -> None:
        """Judge ``exercise`` next: a fresh process under its limits and forbidden calls."""
        self._end_exercise()
        if self._chan is None:
            self._start()
        self.exercise = exercise
        self._cpu_limit = float(exercise.time_limit)
        wall = wall_backstop(self._cpu_limit)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._chan.send(
                pickle.dumps(Begin(exercise.name, self._cpu_limit, wall)), fds=[theirs.fileno()]
            )
        except OSError:
            ours.close()
            self._stop()
            self._start()
            return self.begin(exercise)
        finally:
            theirs.close()
        self._ex = Channel(ours)
        self._ex_deadline = time.monotonic() + wall + GRACE
        self._forbidden: list[str] = []
        self._refused: list[str] = []
        self._tampered: list[str] = []
        self._events = 0

    def _exit_report(self, timeout: float) -> dict | None:
        """The learner process's word on how the exercise process ended."""
        if self._chan is None:
            return None
        try:
            message = parse(self._chan.receive(time.monotonic() + timeout, 4096))
        except (ChannelTimeout, ChannelClosed, ProtocolError):
            self._stop()  # it does not answer as it should: a fresh one next time
            return None
        if message["type"] != "exited":
            self._stop()
            return None
        return message

    def _end_exercise(self, wait: bool = True) -> None:
        """Hang up on the exercise process; ``wait`` for its end, or end the learner process."""
        if self._ex is None:
            return
        if wait:
            self._ex.close()
            self._ex = None
            self._exit_report(GRACE)
        else:
            self._stop()

    def _exercise_ended(self) -> LearnerProblem:
        """The exercise process is gone: why, in the learner's terms."""
        self._ex.close()
        self._ex = None
        remaining = max(0.0, self._ex_deadline - time.monotonic())
        report = self._exit_report(remaining + GRACE)
        if report is None:
            return LearnerCrashed("the sandbox stopped")
        status, cpu = report["status"], report["cpu"]
        if report["wall_limit_hit"]:
            return self._wall_timeout()
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= self._cpu_limit - 0.05):
                return LearnerTimeout(
                    f"your code used more than {self._cpu_limit:g} s of CPU time, this "
                    "exercise's limit (an endless loop, or a loop over every element that should "
                    "be a tensor operation?)",
                    ErrorKind.CPU_TIME,
                    cpu,
                )
        return self._ended(status, "")

    def _wall_timeout(self) -> LearnerTimeout:
        wall = wall_backstop(self._cpu_limit)
        return LearnerTimeout(
            f"your code was still running after {wall:.0f} s of wall-clock time without using "
            f"its {self._cpu_limit:g} s of CPU time: it sleeps or waits for something that never "
            "comes (input(), a lock, time.sleep)",
            ErrorKind.WALL_CLOCK,
            wall,
        )

    def defines(self, name: str) -> bool:
        return name in self.defined

    def _request(self, req: Request) -> Any:
        if self._ex is None:
            raise LearnerCrashed("the sandbox had already stopped")
        if self._forbidden:
            raise ForbiddenUsed(sorted(set(self._forbidden)))
        devices = _devices(req.args, req.kwargs, req.extra)
        try:
            self._ex.send(pickle.dumps(req))  # plain pickle: tensors go by value
        except OSError:
            raise self._exercise_ended() from None
        while True:
            try:
                message = parse(self._ex.receive(self._ex_deadline))
            except ChannelClosed:
                raise self._exercise_ended() from None
            except ChannelTimeout:
                self._end_exercise(wait=False)
                raise self._wall_timeout() from None
            except ProtocolError as e:
                self._end_exercise(wait=False)
                raise Tampered(f"the sandbox sent something that is not a reply ({e})") from None
            if message["type"] != "event":
                break
            self._events += 1
            kind, what = message["kind"], message["what"]
            {"forbidden": self._forbidden, "refused": self._refused}.get(
                kind, self._tampered
            ).append(what)
            if self._events > MAX_EVENTS:
                self._end_exercise(wait=False)
                raise Tampered("the sandbox sent too many messages")
        if self._forbidden:
            raise ForbiddenUsed(sorted(set(self._forbidden)))
        if self._tampered:
            raise Tampered(self._tampered[0])
        if self._refused:  # reported even if the learner's code caught the exception
            raise Tampered("the grader's sandbox does not allow " + "; ".join(self._refused))
        if message["type"] == "error":
            kind, text = message["kind"], message["message"]
            if kind == "MemoryError" or "can't allocate memory" in text:
                raise LearnerOutOfMemory(text.splitlines()[0][:200] if text else kind)
            if kind == "NotImplementedError" and message["raised_by_learner"]:
                raise NotWrittenYet(text)
            if kind in ("SystemExit", "KeyboardInterrupt"):
                raise LearnerCrashed(
                    f"your code raised {kind} to stop the grader instead of returning a value; "
                    "don't call exit() or sys.exit() in your solution"
                )
            raise LearnerError(kind, text, message["traceback"])
        if message["type"] != "reply":
            self._end_exercise(wait=False)
            raise Tampered("the sandbox sent something that is not a reply")
        try:
            if message["trace"] is not None:
                self.last_trace = _trace(message["trace"])
            return _from_plain(message["value"], devices)
        except ProtocolError as e:
            raise Tampered(f"the sandbox sent something that is not a reply ({e})") from None

    def call(
        self, name: str, *args, watch: bool = False, check_devices: bool = True, **kwargs
    ) -> Any:
        """Call the learner's function ``name`` in the sandbox and return its value
        (``check_devices=False``: without the check that new tensors follow the inputs' device)."""
        extra = {} if check_devices else {"devices": False}
        return self._request(
            Request("call", name, args=args, kwargs=kwargs, watch=watch, extra=extra)
        )

    def get(self, name: str) -> Any:
        """The value of the learner's global ``name`` (None if it is not defined)."""
        return self._request(Request("get", name))

    def new(self, name: str, *args, **kwargs) -> RemoteObject:
        """Construct the learner's class ``name`` in the sandbox."""
        handle = self._request(Request("new", name, args=args, kwargs=kwargs))
        if not isinstance(handle, int):
            raise Tampered("the sandbox sent something that is not a reply")
        return RemoteObject(self, handle, name)


def run_check(sub: Submission, ex) -> None:
    """``sub.begin(ex); ex.check(sub)``, with a time limit hit retried once before it counts:
    limits count CPU time, so a second try only ever helps code that was near its limit."""
    for attempt in (1, 2):
        sub.begin(ex)
        try:
            ex.check(sub)
            return
        except LearnerTimeout:
            if attempt == 2:
                raise


class RemoteObject:
    """An object (usually an ``nn.Module``) living in the sandbox."""

    def __init__(self, sub: Submission, handle: int, name: str):
        self._sub, self._handle, self.name = sub, handle, name

    def __call__(self, *args, watch: bool = False, check_devices: bool = True, **kwargs) -> Any:
        extra = {} if check_devices else {"devices": False}
        return self._sub._request(
            Request("call", self._handle, args=args, kwargs=kwargs, watch=watch, extra=extra)
        )

    def method(self, name: str, *args, watch: bool = False, **kwargs) -> Any:
        return self._sub._request(
            Request("call", self._handle, name, args=args, kwargs=kwargs, watch=watch)
        )

    def load_state_dict(self, state_dict: dict[str, torch.Tensor]) -> None:
        self._sub._request(
            Request("load_state_dict", self._handle, extra={"state_dict": dict(state_dict)})
        )

    def describe(self) -> dict:
        return self._sub._request(Request("describe", self._handle))

    def fit(self, tokens: torch.Tensor, steps: int, lr: float) -> list[float]:
        extra = {"tokens": tokens, "steps": steps, "lr": lr}
        return self._sub._request(Request("fit", self._handle, extra=extra))

    def to(self, dtype_or_device) -> None:
        self.method("to", dtype_or_device)

    def train(self, mode: bool = True) -> None:
        self.method("train", mode)

    def eval(self) -> None:
        self.method("eval")

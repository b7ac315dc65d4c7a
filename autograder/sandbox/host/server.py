"""The judge's handle on one sandbox: bubblewrap around the warm server
(:mod:`autograder.sandbox.inside.zygote`).

The server imports torch once; the judge asks it over a control socket for a learner process per
submission (:meth:`Server.spawn`), and hears from it when each one ends (:meth:`exit_status`) and
when it is ready (:meth:`ready`: torch and the worker loaded, so a first check need not wait).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading

from autograder.sandbox.host import bwrap
from autograder.sandbox.host.bwrap import (
    LAUNCH,
    ROOT,
    SANDBOX_FILES,
    NotReadable,
    _as_user,
    _boot,
    _bwrap_command,
    _interpreter,
    _strong_boot,
    launch,
    strong_isolation_available,
)
from autograder.sandbox.host.cgroup import CpuGroup
from autograder.sandbox.host.plots import needs_plots
from autograder.sandbox.protocol import COMMAND, PLOTS, RECORD, Channel


class SandboxUnavailable(RuntimeError):
    """The strong sandbox was required and cannot run here (the CLI exits 2 with this message)."""


class Server:
    """The judge's handle on one sandbox: bubblewrap around the warm server (``_zygote``)."""

    def __init__(self, *, strong: bool | None = None, probe: bool = True):
        """``strong``: in bubblewrap (None: where it works); ``probe=False`` skips asking first
        whether it does (the caller sees the answer in :meth:`wait_ready`)."""
        if strong is None:
            strong = strong_isolation_available()
        elif strong and probe and not strong_isolation_available():
            raise SandboxUnavailable(
                "the OS-level sandbox cannot run here: "
                f"{bwrap._probe.get('why') or 'bubblewrap failed'}. Install bubblewrap "
                "(apt-get install bubblewrap) to grade a class safely."
            )
        self.strong = strong
        self.tentative = strong and not probe  # bubblewrap not yet known to work here
        self._ctrl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fd = theirs.fileno()
        self._layout = None
        fds, own, started = [fd], [], dict(LAUNCH)
        if strong:
            try:
                python, folders, user = _interpreter()
            except NotReadable as e:
                theirs.close()
                self._ctrl.close()
                raise SandboxUnavailable(str(e)) from None
            boot = _strong_boot(
                f"from autograder.sandbox.inside.zygote import serve; serve({fd}, True)"
            )
            cmd, own, user = launch(_bwrap_command(python, folders, boot), user)
            fds += own
        else:
            bwrap._note_weak()
            user = None
            self._layout = tempfile.mkdtemp(prefix="autograder-lib-")
            for dest, src in SANDBOX_FILES.items():
                os.makedirs(os.path.join(self._layout, os.path.dirname(dest)), exist_ok=True)
                os.symlink(src, os.path.join(self._layout, dest))
            hidden = (str(ROOT),)
            serve = (
                "from autograder.sandbox.inside.zygote import serve; "
                f"serve({fd}, False, {hidden!r})"
            )
            boot = _boot(serve, self._layout)
            cmd = [sys.executable, "-I", "-S", "-B", "-c", boot]
            started = {"env": {**os.environ, "MPLBACKEND": "Agg"}}
        self.user = user
        self._cgroup = CpuGroup.make()  # its CPU time as the kernel counts it, where possible
        try:
            self._proc = subprocess.Popen(
                cmd,
                pass_fds=fds,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                **started,
                **_as_user(user),
            )
        except BaseException:
            if self._cgroup is not None:
                self._cgroup.remove()
            raise
        finally:
            for f in own:
                os.close(f)
        if self._cgroup is not None:  # the rest of the sandbox joins it before any learner code
            self._cgroup.adopt([self._proc.pid])
        theirs.close()
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self._started: list[int] = []
        self._exited: dict[int, int] = {}
        self._ready = False
        self._gone = False
        self._cleaned = 0  # resets the server has finished (C records)
        self._measured: list[int] = []  # the server's answers to peak and high (M records)
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        size = RECORD.size
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
                    kind, pid, status = RECORD.unpack(buf[:size])
                    buf = buf[size:]
                    if kind == b"R":
                        self._ready = True
                    elif kind == b"C":
                        self._cleaned += 1
                    elif kind == b"M":
                        self._measured.append(status)
                    elif kind == b"S":
                        self._started.append(pid)
                    else:
                        self._exited[pid] = status
                self._changed.notify_all()

    def alive(self) -> bool:
        return self._proc.poll() is None and not self._gone

    def ready(self) -> bool:
        """Has the server loaded torch and the worker (a learner process starts at once)?"""
        return self._ready and self.alive()

    def wait_ready(self, timeout: float | None) -> bool:
        """Wait until the server is ready (or gone); whether it is ready."""
        with self._changed:
            self._changed.wait_for(lambda: self._ready or self._gone, timeout)
        return self.ready()

    def spawn(self, cells=(), timeout: float = 120.0) -> tuple[int, Channel]:
        """A new learner process for the code ``cells`` (``(label, source)`` pairs) and the
        judge's end of its connection. Where the code plots, the server loads matplotlib first
        (:mod:`~autograder.sandbox.host.plots`)."""
        number = PLOTS if needs_plots(source for _label, source in cells) else 0
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._lock:
            if self._cgroup is not None and not self._cgroup.settled:
                self._cgroup.settle(lambda: _descendants(self._proc.pid))
            try:
                socket.send_fds(self._ctrl, [COMMAND.pack(b"load", number)], [theirs.fileno()])
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

    def reset(self, timeout: float) -> bool:
        """Kill every process of the sandbox and empty its writable places, before it is handed
        to another submission; whether that finished within ``timeout`` and left it as a fresh
        sandbox is (if not, the server has exited, or the caller discards the sandbox)."""
        return self._ask(b"rset", 0, timeout)

    def trim(self, pid: int, timeout: float = 30.0) -> bool:
        """Kill every process of the sandbox but the learner process ``pid`` (one of its exercises
        has ended: nothing it started may run on into the next); whether that was done in time."""
        return self._ask(b"trim", pid, timeout)

    def _ask(self, command: bytes, pid: int, timeout: float) -> bool:
        with self._lock:
            with self._changed:
                before = self._cleaned
            try:
                self._ctrl.sendall(COMMAND.pack(command, pid))
            except OSError:
                return False
            with self._changed:
                self._changed.wait_for(lambda: self._cleaned > before or self._gone, timeout)
                return self._cleaned > before and not self._gone

    def measure(self, command: bytes, timeout: float = 30.0) -> int | None:
        """``b"peak"``: the learner's processes' peak memory is reset to what they hold now, the
        start of a measured call; ``b"high"``: its end, by how many KiB the peak rose. The
        server measures it through /proc (``inside/zygote.py``, ``PeakMemory``), in a process that
        runs no learner code. A negative answer (``protocol.PEAK_*``) says why it could not; None:
        the server did not answer in time."""
        with self._lock:
            with self._changed:
                self._measured.clear()
            try:
                self._ctrl.sendall(COMMAND.pack(command, 0))
            except OSError:
                return None
            with self._changed:
                self._changed.wait_for(lambda: self._measured or self._gone, timeout)
                return self._measured.pop(0) if self._measured else None

    def cpu_seconds(self) -> float | None:
        """CPU seconds every process of this sandbox has used so far, as the judge reads them
        (learner code cannot change it): its cgroup's count, every process that ever ran in it
        (:mod:`~autograder.sandbox.host.cgroup`), or where it has none, /proc's: each live
        process's own and that of the processes it waited for (utime, stime, cutime, cstime),
        summed over the sandbox's process tree. None once it has ended."""
        if self._proc.returncode is not None:
            return None
        if self._cgroup is not None:
            return self._cgroup.seconds()
        return tree_cpu(self._proc.pid)

    def kill(self, pid: int) -> None:
        with contextlib.suppress(OSError):
            self._ctrl.sendall(COMMAND.pack(b"kill", pid))

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
        if self._cgroup is not None:
            self._cgroup.remove()
        if self._layout:
            shutil.rmtree(self._layout, ignore_errors=True)


def tree_cpu(root: int) -> float | None:
    """CPU seconds used by process ``root`` and its descendants, with those they waited for.

    The tree is walked down from ``root`` through each thread's ``children`` in /proc (a few
    reads for a sandbox, where scanning every process of the machine read hundreds at every
    exercise); where the kernel has no such file, every process's parent is read instead."""
    try:
        ours = _descendants(root)
    except OSError:
        return _tree_cpu_by_scan(root)
    ticks = [_ticks(pid) for pid in ours]
    if ticks[0] is None:  # the sandbox itself has ended
        return None
    return sum(t for t in ticks if t is not None) / os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def _ticks(pid: int) -> int | None:
    """utime, stime, cutime and cstime of ``pid``, in clock ticks; None once it is gone."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        return sum(int(x) for x in _stat(pid)[11:15])
    return None


def _descendants(root: int) -> list[int]:
    """``root`` (listed first) and every process below it. OSError when ``root``'s children
    cannot be listed (no such file in this kernel, or ``root`` is gone)."""
    found, todo = [root], [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
            for tid in tasks:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
                found += kids
                todo += kids
        except OSError:
            if pid == root:
                raise
    return found


def _tree_cpu_by_scan(root: int) -> float | None:
    stats: dict[int, tuple[int, int]] = {}  # pid: (parent, clock ticks)
    for name in os.listdir("/proc"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = _stat(int(name))
            stats[int(name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))
    if root not in stats:
        return None
    ours = new = {root}
    while new:
        new = {p for p, (parent, _) in stats.items() if parent in new} - ours
        ours = ours | new
    return sum(stats[p][1] for p in ours) / os.sysconf("SC_CLK_TCK")

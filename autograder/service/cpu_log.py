"""Opt-in CPU accounting of the warm grader's requests (``AUTOGRADER_CPU_LOG=<file>``).

For measuring only (tests/cpu_table.py sets it for a test session): each request a worker
serves appends one JSON line to the file, with the CPU-seconds its process tree (the worker, its
sandbox server and every learner process) spent while serving it, and whom it served: the
caller's ``PYTEST_CURRENT_TEST`` (from the request's environment or the caller's process) and
pid. Unset, nothing is read or written.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import time
from pathlib import Path

ENV = "AUTOGRADER_CPU_LOG"
_TICK = os.sysconf("SC_CLK_TCK")
_last: list[float] = [time.time(), 0.0]  # (time, tree CPU) where the previous request ended


CGROUP_ENV = "AUTOGRADER_CPU_CGROUP"  # a cgroup v1 cpuacct folder: each accounted process's own
_cgroup: list[Path] = []  # this process's accounting cgroup, once it has moved into one


def enter_cgroup(name: str) -> None:
    """Move this process (and so everything it starts from now on, orphans included) into its
    own cpuacct cgroup ``$AUTOGRADER_CPU_CGROUP/<name>``, where that variable is set."""
    base = os.environ.get(CGROUP_ENV)
    if not base or _cgroup:
        return
    folder = Path(base) / name
    try:
        folder.mkdir(exist_ok=True)
        (folder / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        return
    _cgroup.append(folder)


def cpu() -> float:
    """This process's CPU-seconds with what it started: its cgroup's (every process that ever
    ran in it), else its /proc tree's (:func:`tree_cpu`)."""
    if _cgroup:
        return int((_cgroup[0] / "cpuacct.usage").read_text()) / 1e9
    return tree_cpu(os.getpid())


def tree_cpu(root: int) -> float:
    """CPU-seconds of ``root`` and its live descendants, with every child they have reaped
    (utime + stime + cutime + cstime of each live process of the tree)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        pid = int(name)
        parent[pid] = int(fields[1])
        cpu[pid] = sum(int(x) for x in fields[11:15]) / _TICK
    total, stack, seen = 0.0, [root], set()
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    while stack:
        pid = stack.pop()
        if pid in seen or pid not in cpu:
            continue
        seen.add(pid)
        total += cpu[pid]
        stack.extend(children.get(pid, ()))
    return total


def _caller(conn: socket.socket, message: dict) -> tuple[int, str, str]:
    pid = 0
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid = struct.unpack("3i", creds)[0]
    except OSError:
        pass
    env = dict(message.get("env") or {})
    if pid:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                for item in f.read().split(b"\0"):
                    name, _, value = item.decode(errors="replace").partition("=")
                    env.setdefault(name, value)
        except OSError:
            pass
    return pid, env.get("PYTEST_CURRENT_TEST", ""), env.get("PYTEST_XDIST_WORKER", "")


class Request:
    """``begin()`` and ``end()`` around serving one request: its line in the log."""

    def __init__(self, conn: socket.socket, message: dict):
        self.path = os.environ.get(ENV)
        if self.path:
            self.pid, self.test, self.worker = _caller(conn, message)

    def begin(self) -> Request:
        if self.path:
            self.t0, self.cpu0 = time.time(), cpu()
            # what the worker did before (its start) or between requests (warm-up, spares)
            gap = {"t0": _last[0], "t1": self.t0, "cpu": self.cpu0 - _last[1]}
            self._write({**gap, "kind": "between", "worker_pid": os.getpid()})
        return self

    def _write(self, line: dict) -> None:
        with open(self.path, "a") as f:
            f.write(json.dumps(line) + "\n")

    def end(self) -> None:
        if self.path:
            t1, cpu1 = time.time(), cpu()
            _last[:] = [t1, cpu1]
            line = {"t0": self.t0, "t1": t1, "cpu": cpu1 - self.cpu0, "kind": "service"}
            self._write({**line, "caller": self.pid, "test": self.test, "worker": self.worker})

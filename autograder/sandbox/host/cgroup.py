"""A sandbox's CPU time as the kernel counts it: one cgroup per sandbox, where the grader may
make one.

The judge's other count (``server.tree_cpu``) sums, in /proc, each live process's own CPU time
and that of the processes it waited for. A process whose parent ignores SIGCHLD is reaped by the
kernel when it ends, and its time is added to no one: red team round 33's definitions forked
spinners that way, and ~170 CPU-s per run of them read as 0.3 to 2, so the load budget and the
wall-time budget (which tells a busy machine from the submission's own load) saw nothing. A
cgroup counts every task that ever ran in it, ended or not. A grader running as root on cgroup
v1's ``cpuacct`` hierarchy, or on a cgroup v2 tree it can write, puts each sandbox in one of its
own, from the sandbox's first process on (:meth:`CpuGroup.join`, before bubblewrap starts);
elsewhere there is none, and the /proc sums stand (SECURITY.md says which applies).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time

# Where a cgroup can count CPU time: cgroup v1's cpuacct hierarchy (ns, in cpuacct.usage), then a
# cgroup v2 tree (usage_usec, in cpu.stat: there without any controller enabled); each sandbox's
# group is made inside the judge's own (its line in /proc/self/cgroup), so that what counts the
# judge's CPU still counts its sandboxes'.
PLACES = (
    ("/sys/fs/cgroup/cpuacct", "cpuacct.usage", "cpuacct"),
    ("/sys/fs/cgroup/unified", "cpu.stat", ""),
    ("/sys/fs/cgroup", "cpu.stat", ""),
)
PREFIX = "autograder-"  # autograder-<judge pid>-<n>
_numbers = itertools.count()


class CpuGroup:
    """A cgroup made for one sandbox: its processes' CPU time, ended ones included."""

    def __init__(self, path: str, usage: str, procs: int):
        self.path, self._usage, self._procs = path, usage, procs

    @classmethod
    def make(cls) -> CpuGroup | None:
        """A new, empty cgroup, or None where this process may not make one."""
        for mount, usage, controller in PLACES:
            root = _own(mount, controller)
            if root is None or not os.path.isfile(os.path.join(root, usage)):
                continue
            _sweep(root)
            path = os.path.join(root, f"{PREFIX}{os.getpid()}-{next(_numbers)}")
            try:
                os.mkdir(path, 0o755)
            except OSError:
                continue
            try:
                procs = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                os.rmdir(path)
                continue
            group = cls(path, usage, procs)
            if group.seconds() is not None:
                return group
            group.remove()
        return None

    def join(self) -> None:
        """Move the calling process into the group: ``preexec_fn`` of the sandbox's first
        process, so that everything it starts is born in it (the descriptor was opened by the
        judge, so a process that has already dropped to the sandbox's user can still use it)."""
        os.write(self._procs, b"0")

    def seconds(self) -> float | None:
        """CPU seconds every process that ran in the group has used; None if it cannot be read."""
        try:
            with open(os.path.join(self.path, self._usage)) as f:
                text = f.read()
            if self._usage == "cpuacct.usage":
                return int(text) / 1e9
            fields = dict(line.split() for line in text.splitlines() if line.strip())
            return int(fields["usage_usec"]) / 1e6
        except (OSError, ValueError, KeyError):
            return None

    def remove(self) -> None:
        """Close the group and remove it once its processes have ended (within a second)."""
        with contextlib.suppress(OSError):
            os.close(self._procs)
        for _ in range(20):
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:  # its last processes are still being torn down
                time.sleep(0.05)


def _own(mount: str, controller: str) -> str | None:
    """The judge's own group in the hierarchy mounted at ``mount`` (``controller``'s in cgroup
    v1, the v2 one for ""), or None if it is not listed."""
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controller in controllers.split(","):  # "" is the v2 line, 0::/path
                    return os.path.join(mount, path.lstrip("/"))
    except (OSError, ValueError):
        pass
    return None


def _sweep(root: str) -> None:
    """Remove the groups a judge that no longer runs left behind (killed before it could)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(root):
            if not name.startswith(PREFIX):
                continue
            owner = name[len(PREFIX) :].split("-")[0]
            if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(root, name))

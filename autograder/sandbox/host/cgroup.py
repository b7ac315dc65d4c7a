"""A sandbox's CPU time as the kernel counts it: one cgroup per sandbox, where the grader may
make one.

The judge's other count (``server.tree_cpu``) sums, in /proc, each live process's own CPU time
and that of the processes it waited for. A process whose parent ignores SIGCHLD is reaped by the
kernel when it ends, and its time is added to no one: red team round 33's definitions forked
spinners that way, and ~170 CPU-s per run of them read as 0.3 to 2, so the load budget and the
wall-time budget (which tells a busy machine from the submission's own load) saw nothing. A
cgroup counts every task that ever ran in it, ended or not. A grader running as root on cgroup
v1's ``cpuacct`` hierarchy, or on a cgroup v2 tree it can write, puts each sandbox in one of its
own: its first process as soon as it is started, every other one before the first learner
process is (:meth:`CpuGroup.settle`), so that all learner code runs in it; elsewhere there is
none, and the /proc sums stand (SECURITY.md says which applies).
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


# Where a cgroup of its own gives a sandbox one fair share of the CPUs, however many processes it
# runs (cgroup v1's cpu controller, where it is mounted apart from cpuacct): red team round 34's
# note, 63 spinners of one submission that would starve a classmate's sandbox past its wall-clock
# backstop under `grade --workers 2`. (cgroup v2 would need the cpu controller enabled in the
# parent's subtree_control: not done.)
FAIR = ("/sys/fs/cgroup/cpu", "cpu.shares", "cpu")


class CpuGroup:
    """The cgroups made for one sandbox: one that counts its processes' CPU time, ended ones
    included, and where there is one, one that gives it a fair share of the CPUs."""

    def __init__(self, path: str, usage: str, procs: list[tuple[str, int]]):
        self.path, self._usage, self._procs = path, usage, procs
        self.settled = False  # every process of the sandbox is in the groups (settle)

    @classmethod
    def make(cls) -> CpuGroup | None:
        """New, empty cgroups, or None where this process may not make one that counts."""
        for mount, usage, controller in PLACES:
            made = _made(mount, usage, controller)
            if made is None:
                continue
            group = cls(made[0], usage, [made])
            if group.seconds() is None:
                group.remove()
                continue
            # cpu mounted apart (co-mounted with cpuacct, as often, one link to both: this one)
            if os.path.realpath(FAIR[0]) != os.path.realpath(mount):
                fair = _made(*FAIR)
                if fair is not None:
                    group._procs.append(fair)
            return group
        return None

    def adopt(self, pids) -> None:
        """Move processes into the groups (each write moves one process, all its threads; the
        descriptors were opened when the groups were made); one already gone is skipped."""
        for _, procs in self._procs:
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.write(procs, str(pid).encode())

    def settle(self, sandbox) -> None:
        """Move every process of the sandbox (``sandbox()`` lists them) into the groups, until a
        listing finds them all there: done before its first learner process is started, so that
        every process that runs learner code is born in them. (The sandbox's first process is
        moved as soon as it is started; those it started before that are moved here. Moving it
        in the child, before it runs bubblewrap, needed ``preexec_fn``, which a Ctrl-C during the
        fork broke in CPython: "release unlocked lock".)"""
        for _ in range(10):
            try:
                outside = [pid for pid in sandbox() if not self._holds(pid)]
            except OSError:  # the sandbox has ended: spawning says so
                break
            if not outside:
                break
            self.adopt(outside)
        self.settled = True

    def _holds(self, pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/cgroup") as f:
                mine = f.read()
        except OSError:
            return True  # gone
        return all(f":{_relative(path)}\n" in mine for path, _ in self._procs)

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
        """Close the groups and remove them once their processes have ended (within a second)."""
        for path, procs in self._procs:
            with contextlib.suppress(OSError):
                os.close(procs)
            for _ in range(20):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:  # its last processes are still being torn down
                    time.sleep(0.05)


def _made(mount: str, usage: str, controller: str) -> tuple[str, int] | None:
    """A new cgroup inside the judge's own in the hierarchy at ``mount`` (whose groups have
    ``usage``), and its ``cgroup.procs`` opened for writing; None where one cannot be made."""
    root = _own(mount, controller)
    if root is None or not os.path.isfile(os.path.join(root, usage)):
        return None
    _sweep(root)
    path = os.path.join(root, f"{PREFIX}{os.getpid()}-{next(_numbers)}")
    try:
        os.mkdir(path, 0o755)
    except OSError:
        return None
    try:
        return path, os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        os.rmdir(path)
        return None


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


def _relative(path: str) -> str:
    """A group's path as /proc/<pid>/cgroup lists it: from its hierarchy's mount."""
    mounts = [m for m, _, _ in (*PLACES, FAIR) if path.startswith(m.rstrip("/") + "/")]
    mount = max(mounts, key=len)  # /sys/fs/cgroup/cpu, not /sys/fs/cgroup
    return "/" + os.path.relpath(path, mount)


SWEEP_AGE = 600.0  # seconds a group of a judge no longer seen must be old to be swept


def _sweep(root: str) -> None:
    """Remove the groups a judge that no longer runs left behind (killed before it could): those
    of a pid no longer in /proc and older than SWEEP_AGE (a judge in another pid namespace that
    shares the tree has a pid not seen here: its just-made, still-empty group is never taken).
    The kernel refuses to remove a group that still holds a process."""
    with contextlib.suppress(OSError):
        for name in os.listdir(root):
            if not name.startswith(PREFIX):
                continue
            owner = name[len(PREFIX) :].split("-")[0]
            path = os.path.join(root, name)
            if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                with contextlib.suppress(OSError):
                    if time.time() - os.stat(path).st_mtime > SWEEP_AGE:
                        os.rmdir(path)

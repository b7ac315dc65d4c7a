"""What the sandbox's server reads in /proc about the learner's processes, to measure the peak
memory of a learner call (:class:`autograder.sandbox.inside.zygote.PeakMemory`)."""

from __future__ import annotations

import contextlib
import os

from autograder.sandbox.protocol import TMPFS


def _proc(pid: int, name: str) -> str:
    with open(f"/proc/{pid}/{name}") as f:
        return f.read()


def _ended(pid: int) -> bool:
    """Whether a process (or thread) has ended: gone, or a zombie (ended, not yet waited for:
    its memory is gone, but its /proc entry stays until its parent waits for it)."""
    try:
        return _proc(pid, "stat").rsplit(")", 1)[1].split()[0] in ("Z", "X", "x")
    except (OSError, IndexError):
        return True


def _memory(pid: int) -> tuple[int, int, int] | None:
    """A process's start time (which process this pid is), resident memory and its peak since
    the last reset (VmRSS, VmHWM), in KiB; None once it has ended (a zombie has no memory), so
    that a learner process whose memory cannot be read counts as ended, never as nothing."""
    try:
        start = int(_proc(pid, "stat").rsplit(")", 1)[1].split()[19])
        fields = dict(line.split(":", 1) for line in _proc(pid, "status").splitlines())
    except (OSError, ValueError, IndexError):
        return None
    if "VmHWM" not in fields:
        return None
    return start, int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def _held(pid: int) -> tuple[int, int] | None:
    """KiB a process holds that a measured call could reuse unseen (``/proc/<pid>/smaps_rollup``):
    what it has written and no other process maps (``Private_Dirty``: what it wrote since it was
    forked, copies made on write included, not what it shares with the process it was forked
    from), and its share of shared memory (``Pss_Shmem``: ``MAP_SHARED`` anonymous memory and
    files of a tmpfs it maps, each page divided among the processes that map it, so that summed
    over the processes a page counts once, however many map it: red team round 8). Reading it
    walks the process's page tables (tens of ms): done at the start and the end of a measured
    call, not at each look."""
    try:
        fields = dict(line.split(":", 1) for line in _proc(pid, "smaps_rollup").splitlines()[1:])
        shared = fields.get("Pss_Shmem", "0")  # (an older kernel's has none: SECURITY.md)
        return int(fields["Private_Dirty"].split()[0]), int(shared.split()[0])
    except (OSError, ValueError, IndexError, KeyError):
        return None


def _tmpfs_used(contained: bool) -> int:
    """KiB stored in the sandbox's writable places (files are memory there, in no process's RSS);
    0 outside a sandbox (its /tmp is the machine's)."""
    used = 0
    for place in TMPFS if contained else ():
        with contextlib.suppress(OSError):
            st = os.statvfs(place)
            used += (st.f_blocks - st.f_bfree) * st.f_frsize // 1024
    return used


def _learner_pids(contained: bool) -> set[int]:
    """Every process that may run learner code: in the sandbox, all but this server (its pid 1:
    the pid namespace holds nothing else); without one, this server's descendants."""
    me = os.getpid()
    pids = {int(p) for p in os.listdir("/proc") if p.isdigit()} - {me}
    if contained:
        return pids
    parent = {}
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            parent[pid] = int(_proc(pid, "stat").rsplit(")", 1)[1].split()[1])
    ours, new = set(), {me}
    while new:
        new = {p for p, pp in parent.items() if pp in new} - ours
        ours |= new
    return ours


def _last_pid() -> int | None:
    try:
        return int(_proc("sys/kernel", "ns_last_pid"))
    except (OSError, ValueError):
        return None


def _exercise_processes(learners: set[int]) -> set[int]:
    """The newest child of each learner process: its exercise process (forked for the current
    exercise, after anything the learner's definitions could have started)."""
    newest: dict[int, tuple[int, int]] = {}
    for p in os.listdir("/proc"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = _proc(int(p), "stat").rsplit(")", 1)[1].split()
            parent, start = int(fields[1]), int(fields[19])
            live = fields[0] not in ("Z", "X", "x")
            if live and parent in learners and start >= newest.get(parent, (0, -1))[1]:
                newest[parent] = (int(p), start)
    return {pid for pid, _ in newest.values()}

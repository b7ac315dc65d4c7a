"""What the sandbox's server reads in /proc about the learner's processes, to measure the peak
memory of a learner call (:class:`autograder.sandbox.inside.zygote.PeakMemory`)."""

from __future__ import annotations

import contextlib
import os

from autograder.sandbox.protocol import TMPFS

TICKS = os.sysconf("SC_CLK_TCK")  # /proc's unit of CPU time: clock ticks a second

# What the learner's processes may hold at the start of a measured call before the rest counts as
# memory of the call (KiB): memory kept from an earlier call is reused without raising any peak.
# Held: what the learner's processes hold written and no other process maps (``Private_Dirty``, but
# in a private mapping only its anonymous pages: not the page cache of a library written minutes
# ago, procfs._private_anonymous), summed over them (red team round 9: the most one held counted
# once, so 32 MiB in each of two processes hid 64), plus the shared memory they map (``Pss_Shmem``,
# summed: a pool mapped by two processes is in neither's private memory, red team round 8), plus the
# files already in the sandbox's tmpfs (rewritten in place, they grow nothing). A learner process's
# definitions are shared with the exercise process forked from it and count nothing here, and the
# exercise process gives its freed heap back (``malloc_trim``) when told a measured call comes.
# Lesson 09's correct files and solution hold 17-20 MiB at its measured calls (the learner process
# 5-8, the exercise process 11-13); with the 28 MiB of growth lesson 09 allows (``MEMORY_LIMIT``), a
# call can use under 52 MiB unseen: less than the full (4096, 16384) matrix it measures, even in 8
# bits (64 MiB). (At 32 MiB, with a 32 MiB limit, the (4096, 4096) matrix of round 9 fitted in
# float16.)
HELD_ALLOWANCE = 24 * 1024


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


def _memory(pid: int) -> tuple[int, int, int, int, float] | None:
    """A process's start time (which process this pid is), resident memory, its peak since the
    last reset, and its memory that is not a file's (VmRSS, VmHWM, RssAnon + RssShmem + VmSwap),
    in KiB, and the CPU seconds it has used (utime + stime, all its threads, to a clock tick);
    None once it has ended (a zombie has no memory), so that a learner process whose
    memory cannot be read counts as ended, never as nothing. (The last rises where a page of a
    privately mapped file is copied on write, or file pages dropped make room for memory written
    elsewhere, while VmRSS does not: red team rounds 12 and 13.)"""
    try:
        stat = _proc(pid, "stat").rsplit(")", 1)[1].split()
        start, cpu = int(stat[19]), (int(stat[11]) + int(stat[12])) / TICKS  # fields 22, 14, 15
        fields = dict(line.split(":", 1) for line in _proc(pid, "status").splitlines())
    except (OSError, ValueError, IndexError):
        return None
    if "VmHWM" not in fields:
        return None
    # RssAnon + RssShmem = VmRSS - RssFile: file pages dropped then memory written elsewhere
    # (red team round 13) keep VmRSS flat, not this; VmSwap: written memory paged out to swap
    # (madvise(MADV_PAGEOUT), on a host with swap or zswap: round 14) is still held
    anon = sum(int(fields[f].split()[0]) for f in ("RssAnon", "RssShmem", "VmSwap") if f in fields)
    return start, int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0]), anon, cpu


def _held(pid: int) -> tuple[int, int] | None:
    """KiB a process holds that a measured call could reuse unseen: what it has written and no
    other process maps (:func:`_private_anonymous`: what it wrote since it was forked, copies made
    on write included, not what it shares with the process it was forked from, nor the page cache
    of the files it maps), and its share of shared memory (``Pss_Shmem`` of
    ``/proc/<pid>/smaps_rollup``: ``MAP_SHARED`` anonymous memory and files of a tmpfs it maps,
    each page divided among the processes that map it, so that summed over the processes a page
    counts once, however many map it: red team round 8). Reading them walks the process's page
    tables (tens of ms): done at the start and the end of a measured call, not at each look. On an
    older kernel, whose ``smaps_rollup`` has no ``Pss_Shmem`` (SECURITY.md), the first figure is
    its ``Private_Dirty`` whole (the page cache included) and the second 0."""
    try:
        fields = dict(line.split(":", 1) for line in _proc(pid, "smaps_rollup").splitlines()[1:])
        if "Pss_Shmem" not in fields:
            return int(fields["Private_Dirty"].split()[0]), 0
        shared = int(fields["Pss_Shmem"].split()[0])
        private = _private_anonymous(pid)
    except (OSError, ValueError, IndexError, KeyError):
        return None
    return (private, shared) if private is not None else None


# Bytes of a process's /proc/<pid>/smaps the server reads, a line at a time (a learner process
# with torch has ~500 mappings, 0.4 MB). Red team round 33 mapped one file 20000 times under a
# path of 100 KB (400 nested folders): 2 GB per process, read whole, and the server, which has no
# memory limit of its own, grew to 4.4 GiB. Past the cap the process cannot be measured (the
# measured call fails, as for any process whose memory cannot be read).
SMAPS_MAX = 64 * 2**20


def _capped_lines(path: str, cap: int):
    """The lines of ``path`` as text, read a line at a time; a last None where they pass ``cap``
    bytes (nothing more is read)."""
    read = 0
    with open(path, "rb") as f:
        for line in f:
            read += len(line)
            if read > cap:
                yield None
                return
            yield line.decode(errors="replace")


def _private_anonymous(pid: int) -> int | None:
    """KiB a process has written and no other process maps, in each of its mappings
    (``/proc/<pid>/smaps``): its ``Private_Dirty``, up to its ``Anonymous`` in a private mapping.
    There ``Private_Dirty`` also counts the pages of a file not yet written back to disk (the page
    cache of a library installed minutes ago, torch's code that the exercise process maps whole
    before a measured call: up to hundreds of MiB, a correct call failed for them) when no other
    process maps them: the machine's memory, not the learner's. What a process writes in a
    private mapping (a heap, a buffer, a library's data or code, copied on write) is anonymous
    memory, all within ``Anonymous``; a shared mapping (``MAP_SHARED``: a pool, a tmpfs file)
    counts whole, as before (learner code can write no file but the tmpfs's, whose pages
    ``Pss_Shmem`` and the tmpfs's use count too)."""
    total = dirty = anonymous = 0
    shared = False
    for line in _capped_lines(f"/proc/{pid}/smaps", SMAPS_MAX):  # OSError: the caller's
        if line is None:  # more than SMAPS_MAX: the process cannot be measured
            return None
        key, _, value = line.partition(":")
        if key == "Size":  # a mapping's first field: the one before it is complete
            total += dirty if shared else min(dirty, anonymous)
            dirty = anonymous = 0
            shared = False
        elif key == "Private_Dirty":
            dirty = int(value.split()[0])
        elif key == "Anonymous":
            anonymous = int(value.split()[0])
        elif key == "VmFlags":  # its last field
            shared = "sh" in value.split()
    return total + (dirty if shared else min(dirty, anonymous))


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


def _end_watch(pid: int) -> dict[int, int]:
    """``{pidfd: pid}``: a file descriptor that becomes readable when the learner process ``pid``
    ends, so that the server reaps it, reports it and resets the sandbox at once rather than at
    its next look (every 0.1 s: on average 50 ms more per submission, on the judge's wall clock).
    Empty where pidfds are not available (the next look finds it)."""
    try:
        return {os.pidfd_open(pid): pid}
    except (AttributeError, OSError):
        return {}

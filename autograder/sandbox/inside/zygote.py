"""The warm server of one sandbox: it forks one learner process per submission.

The judge starts it inside the sandbox (``bwrap ... python -I -S -B -c "...serve(fd, ...)"``, see
:mod:`autograder.sandbox.host.server`); it imports torch and
:mod:`autograder.sandbox.inside.worker` once, so that each learner process is a fork of it, ready
in milliseconds. It never runs learner code itself. The judge talks to it over a Unix socket:
``load`` with one connected socket (``socket.send_fds``) forks a learner process on it (with
``PLOTS``, matplotlib loaded first: ``worker.load_plots``), ``kill`` + a pid ends one, ``rset``
resets the sandbox (the server answers ``C`` once it is clean, or exits if it cannot make it so),
``trim`` + a learner process's pid kills every other process (an exercise has ended), and ``peak``
and ``high`` measure the peak memory of one learner call (:class:`PeakMemory`, answered ``M``). The
server says ``R`` once torch is loaded, answers ``S`` + the new pid, and ``X`` + pid + wait status
when a learner process ends, so the judge can say *why* it stopped. In the sandbox, the server is
pid 1 (``bwrap --as-pid-1``): the init, which reaps every orphan (``_reap``) and which learner code
can neither trace (it is non-dumpable) nor signal (an init ignores every signal it has no handler
for). When the last learner process has ended, it resets the sandbox
(:mod:`~autograder.sandbox.inside.clean`), so that a sandbox used for one submission after another
starts each one clean. It exits when the judge closes the socket.
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
import time

from autograder.sandbox.inside import clean
from autograder.sandbox.inside.procfs import (
    HELD_ALLOWANCE,
    _end_watch,
    _ended,
    _exercise_processes,
    _held,
    _last_pid,
    _learner_pids,
    _memory,
    _tmpfs_used,
)
from autograder.sandbox.protocol import (
    COMMAND,
    DEVICES,
    PEAK_ENDED,
    PEAK_RESET,
    PEAK_UNAVAILABLE,
    PEAK_UNMEASURED,
    PEAK_UNREADABLE,
    PEAK_UNREAPED,
    PLOTS,
    RECORD,
    TMPFS,
)

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT, _MS_BIND = 1, 2, 4, 32, 4096
# a mount's flags as statvfs shows them (ST_*) -> as mount(2) takes them (MS_*): a bind remount
# must keep those the sandbox's user namespace may not change (nosuid, noexec, the atime ones...)
_KEPT = {2: 2, 4: 4, 8: 8, 1024: 1024, 2048: 2048, 4096: 1 << 21, 8192: 256}
_ST_NOATIME, _ST_RELATIME, _MS_STRICTATIME = 1024, 4096, 1 << 24
_CAPS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


def _read_only_device(libc, path: str) -> None:
    """Make the bind mount of the host's device file ``path`` read-only, still a device (not
    nodev, as bubblewrap's ``--remount-ro`` would make it: nothing could open it): reading and
    writing the device work, changing the host's file (its times: "now" needs only write
    permission, and it is 0666) fails with EROFS. Refuses to go on (SystemExit) if it cannot."""
    import ctypes

    now = os.statvfs(path).f_flag
    flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID
    flags |= sum(ms for st, ms in _KEPT.items() if now & st)
    flags |= 0 if now & (_ST_NOATIME | _ST_RELATIME) else _MS_STRICTATIME
    if libc.mount(None, path.encode(), None, ctypes.c_ulong(flags), None) != 0:
        raise SystemExit(f"cannot make {path} read-only: {os.strerror(ctypes.get_errno())}")
    if not os.statvfs(path).f_flag & os.ST_RDONLY:
        raise SystemExit(f"{path} is still writable")


def seal() -> None:
    """First thing in a sandbox: cap every tmpfs's inodes (bubblewrap sets only its size, and
    empty folders cost no bytes), make the host's device files read-only, then drop the one
    capability bubblewrap gave for that, for this process and all it will start. Refuses to go
    on (SystemExit) if any step fails or any capability is left."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for place, (size, inodes) in TMPFS.items():
        options = f"size={size},nr_inodes={inodes}".encode()  # (a remount ignores mode=)
        flags = _MS_REMOUNT | _MS_NOSUID | _MS_NODEV
        if libc.mount(b"tmpfs", place.encode(), b"tmpfs", flags, options) != 0:
            raise SystemExit(f"cannot cap {place}: {os.strerror(ctypes.get_errno())}")
    for name in DEVICES:
        _read_only_device(libc, f"/dev/{name}")
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    for cap in range(64):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP (EINVAL past the last one)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    libc.capset(header, (ctypes.c_uint32 * 6)())
    with open("/proc/self/status") as f:
        left = [line for line in f if line.split(":")[0] in _CAPS and int(line.split()[1], 16)]
    if left:
        raise SystemExit(f"capabilities left: {left}")


def _reap(ctrl: socket.socket, active: dict[int, str]) -> None:
    """Wait for ended processes; a learner process's folder goes before the judge hears of it."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid in active:
            if folder := active.pop(pid):
                with contextlib.suppress(Exception):  # (a tree too deep: RecursionError)
                    shutil.rmtree(folder)
            ctrl.sendall(RECORD.pack(b"X", pid, status))


def _reset(ctrl: socket.socket, active: dict[int, str], state: tuple) -> bool:
    """Between submissions: nothing of the last one may outlive it or be left for the next
    (:mod:`autograder.sandbox.inside.clean`); whether the sandbox is clean (if not, the server
    exits: the sandbox is discarded, never handed on)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)  # all but us (the sandbox's init)
    return clean.reset(state, lambda: _reap(ctrl, active)) is None


SAMPLE_EVERY = 0.002  # seconds between two looks at the learner processes during a measured call
# How far a process's VmHWM may fall between two looks before it counts as reset (KiB). Only a
# write to clear_refs lowers it; the kernel's per-CPU memory counters (Linux 6.2 and later) and
# memory reclaimed under pressure before the process frees anything can lower the figure it shows
# a little: by at most the counters' batches (32 pages per CPU, more past 16 CPUs) plus what the
# call had allocated when last looked at (a correct tiled call: a few MiB).
RESET_SLACK = 16 * 1024
# The longest time between two looks during a measured call before its measurement counts as
# inconclusive (PEAK_UNMEASURED: the judge measures the call again): a peak reset in a gap would
# go unseen. Learner code cannot stop this server (the seccomp filter refuses stop signals and
# changes to its priority); only a machine too busy to wake it in time makes a gap, which counts
# for as long as the learner's processes ran in it (CPU time): on a busy machine they wait too.
GAP_LIMIT = 0.1


class PeakMemory:
    """The peak memory of one learner call, measured here, where learner code never runs.

    ``start`` (the exercise process has said it is ready for the call, and has not yet been sent its
    inputs; the server has just killed every process but the learner processes and their newest
    children, the exercise processes): every learner process's peak resident memory is reset to what
    it holds now (``/proc/<pid>/clear_refs``), and noted. Then, until the reply, ``sample`` looks at
    every learner process's peak every :data:`SAMPLE_EVERY` seconds: learner processes are dumpable
    (so that this server may reset them), so learner code can reset its own peak too, and only this
    server may. ``end`` (its reply has come): by how much the processes' peaks rose above what
    ``start`` noted, summed, in KiB (the highest seen, whether looked at during the call or at its
    end); a process started meanwhile counts whole. Memory resident before the call is reused
    without raising a peak (copies made on write replace the pages they copy), so added to it: what
    the processes held at the start beyond :data:`HELD_ALLOWANCE`, the most any one process's
    private memory rose by the end beyond its resident memory (copies made on write of pages shared
    with the process it was forked from), and how far the files in the sandbox's tmpfs grew (sampled
    as the peaks are). Fails closed (a negative code, ``protocol.PEAK_*``) where a process cannot be
    measured: its memory unreadable (it made itself non-dumpable), a process ended during the call
    (its peak gone with it; a zombie, whose memory is gone but whose /proc entry stays until it is
    waited for, has ended too), or a process's peak fell between two looks by more than
    :data:`RESET_SLACK` (someone reset it); inconclusive (``PEAK_UNMEASURED``, measured again) where
    two looks were more than :data:`GAP_LIMIT` apart and the learner's processes ran for more than
    that in between."""

    def __init__(self, contained: bool):
        self.contained = contained
        self.before: dict[int, tuple[int, int]] | None = None
        self.last: int | None = None
        self.seen: dict[int, tuple[int, int]] = {}  # pid: (start time, highest VmHWM seen)
        self.anon: dict[int, tuple[int, int]] = {}  # pid: (RssAnon at the start, highest seen)
        self.cpu: dict[int, tuple[int, float]] = {}  # pid: (start time, CPU s at the last look)
        self.scanned: int | None = None  # ns_last_pid when the processes were last listed
        self.reset = self.ended = False
        self.looked = self.gap = 0.0  # when it last looked; the longest time between two looks
        self.private: dict[int, int] = {}  # pid: KiB it alone held at the start (written)
        self.shared = 0  # KiB of shared memory the learner's processes mapped at the start
        self.stored = self.stored_peak = 0  # KiB in the sandbox's tmpfs: at the start, highest

    @property
    def measuring(self) -> bool:
        return self.before is not None

    def forget(self) -> None:
        self.before, self.seen, self.anon, self.cpu = None, {}, {}, {}

    def start(self) -> int:
        if not os.path.isdir("/proc"):
            self.forget()
            return PEAK_UNAVAILABLE
        self.before, failed = {}, 0
        self.seen, self.anon, self.cpu, self.reset, self.ended = {}, {}, {}, False, False
        self.private, self.shared, self.stored = {}, 0, _tmpfs_used(self.contained)
        self.stored_peak = self.stored
        self.looked, self.gap = time.monotonic(), 0.0
        self.last = self.scanned = _last_pid() if self.contained else None
        for pid in _learner_pids(self.contained):
            held = _memory(pid)
            if held is None:  # a zombie (a process of an earlier call, never waited for) or gone
                if os.path.exists(f"/proc/{pid}"):
                    failed = PEAK_UNREAPED if _ended(pid) else PEAK_UNREADABLE
                continue
            try:
                with open(f"/proc/{pid}/clear_refs", "w") as f:
                    f.write("5")  # the peak (VmHWM) := what it holds now (VmRSS)
            except (FileNotFoundError, ProcessLookupError):
                continue
            except OSError:  # non-dumpable, or it has just ended (a zombie's is root's)
                failed = PEAK_UNREAPED if _ended(pid) else PEAK_UNREADABLE
                continue
            after = _memory(pid)
            if held is not None and after is not None and after[0] == held[0]:
                self.before[pid] = (held[0], min(held[1], after[2]))
                self.seen[pid] = (after[0], after[2])
                self.anon[pid] = (after[3], after[3])
                self.cpu[pid] = (after[0], after[4])
                holds = _held(pid)  # None: unreadable (smaps past its cap...): fails closed
                if holds is None:
                    failed = PEAK_UNREAPED if _ended(pid) else PEAK_UNREADABLE
                    continue
                self.private[pid], shared = holds
                self.shared += shared
        self.looked = time.monotonic()  # (reading _held takes a while: the call starts now)
        if failed:
            self.forget()
        return failed

    def sample(self) -> None:
        """One look at every learner process's peak: the highest kept, a fall noted."""
        if self.before is None:
            return
        now = time.monotonic()
        since, self.looked = now - self.looked, now
        ran = 0.0  # CPU seconds the learner's processes used since the last look
        self.stored_peak = max(self.stored_peak, _tmpfs_used(self.contained))
        pids = set(self.seen)
        if self.contained:  # a new process (or thread) since the last list: list them again
            last = _last_pid()
            if last != self.scanned:
                self.scanned = last
                pids |= _learner_pids(True)
        for pid in pids:
            memory = _memory(pid)
            if memory is None:  # it ended (or is a zombie) during the call: its peak is lost
                self.ended = True
                continue
            start, _, peak, anon, cpu = memory
            was = self.cpu.get(pid)
            ran += cpu - was[1] if was is not None and was[0] == start else cpu  # new: all of it
            self.cpu[pid] = (start, cpu)
            known = self.seen.get(pid)
            if known is None or known[0] != start:
                self.seen[pid] = (start, peak)
                continue
            if pid in self.anon and anon > self.anon[pid][1]:
                self.anon[pid] = (self.anon[pid][0], anon)
            if peak < known[1] - RESET_SLACK:
                self.reset = True
            if peak > known[1]:
                self.seen[pid] = (start, peak)
        self.gap = max(self.gap, min(since, ran))  # unseen for as long as they ran

    def end(self) -> int:
        if self.before is None:
            return PEAK_UNAVAILABLE if not os.path.isdir("/proc") else PEAK_UNREADABLE
        self.sample()
        before, seen, anon_seen = self.before, self.seen, self.anon
        private, copied = self.private, 0
        held = sum(private.values()) + self.shared + self.stored
        grew = max(0, held - HELD_ALLOWANCE) + self.stored_peak - self.stored
        self.forget()
        if self.reset:
            return PEAK_RESET
        if self.ended:
            return PEAK_ENDED
        if self.gap > GAP_LIMIT:
            return PEAK_UNMEASURED
        for pid in _learner_pids(self.contained) | set(before):
            memory = _memory(pid)  # None: ended, or a zombie (whose /proc entry stays)
            if memory is None or (pid in before and memory[0] != before[pid][0]):
                return PEAK_ENDED
            start, rss, peak, anon, _cpu = memory
            if pid in seen and seen[pid][0] == start:
                peak = max(peak, seen[pid][1])
            # anonymous memory that rose while the resident did not: pages of a privately mapped
            # file copied on write (the copy replaces the file's page in VmRSS)
            first, highest = anon_seen.get(pid, (anon, anon))
            anon_rose = max(0, max(anon, highest) - first)
            grew += max(0, peak - before[pid][1], anon_rose) if pid in before else peak
            if pid in private:  # its private memory rose, its resident memory did not: copies
                holds = _held(pid)
                if holds is None:  # unreadable now (red team round 35: it read as nothing held)
                    return PEAK_ENDED if _ended(pid) else PEAK_UNREADABLE
                wrote = holds[0] - private[pid]
                copied = max(copied, wrote - max(0, rss - before[pid][1], anon_rose))
        last = _last_pid() if self.contained else None
        if self.last is not None and last is not None:
            # a process (or thread) started and ended during the call: its peak is unknown
            if last < self.last or any(_ended(p) for p in range(self.last + 1, last + 1)):
                return PEAK_ENDED
        return min(grew + copied, 2**31 - 1)


def serve(fd: int, contained: bool, hidden: tuple[str, ...] = ()) -> None:
    if contained:
        if os.getpid() != 1:  # bubblewrap's init would be: learner code could trace it
            raise SystemExit("the sandbox's server must be its pid 1 (bwrap --as-pid-1)")
        seal()
    # No collections while torch loads: its ~340 000 objects all stay, and the collector went
    # over them again and again (40-odd collections, 0.2 of the start's 1.3 CPU-s).
    gc.disable()
    from autograder.sandbox.inside import worker  # torch loads here, once
    from autograder.sandbox.inside.lockdown import PR_SET_DUMPABLE, prctl
    from autograder.sandbox.protocol import close_fds_except

    # Learner processes run as the same user as this server: they must not read or write its
    # memory (/proc/<pid>/mem, ptrace), or every later fork would carry what they wrote.
    prctl(PR_SET_DUMPABLE, 0)
    # What is loaded stays out of the forked processes' collections: a full one copied ~80 MiB of
    # pages, counted as learner memory (tiled_attention calling gc.collect() failed for 81 MiB).
    gc.freeze()
    gc.enable()

    ctrl = socket.socket(fileno=fd)
    ctrl.sendall(RECORD.pack(b"R", os.getpid(), 0))  # ready: a learner process starts at once
    # a learner process's pid: its folder where a reset does not empty it (outside bubblewrap,
    # the host's /tmp: the server removes it when the process has ended)
    active: dict[int, str] = {}
    peak = PeakMemory(contained)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    state = clean.own_state()  # as a fresh sandbox is: each reset must find it so again
    ended: dict[int, int] = {}  # a learner process's pidfd: its pid (readable once it has ended)
    while True:
        ready, _, _ = select.select([ctrl, *ended], [], [], SAMPLE_EVERY if peak.measuring else 0.1)
        peak.sample()
        had = bool(active)
        _reap(ctrl, active)
        for fd in [fd for fd, pid in ended.items() if pid not in active]:
            os.close(fd)
            del ended[fd]
        ready = [r for r in ready if r is ctrl]
        if contained and had and not active:
            if not _reset(ctrl, active, state):
                return  # not clean: the sandbox ends, the judge starts a fresh one
            peak.forget()
        if not ready:
            continue
        try:
            msg, fds, _, _ = socket.recv_fds(ctrl, COMMAND.size, 1)
        except OSError:
            return
        if len(msg) < COMMAND.size:  # the judge has gone: so do we
            return
        command, pid = COMMAND.unpack(msg)
        if command == b"rset":  # the judge hands this sandbox on only once it is clean
            if contained and not _reset(ctrl, active, state):
                return
            peak.forget()
            ctrl.sendall(RECORD.pack(b"C", os.getpid(), 0))
            continue
        if command == b"trim":  # an exercise has ended: nothing it started runs on
            if contained:
                clean.kill_others(lambda: _reap(ctrl, active), spare={pid})
            ctrl.sendall(RECORD.pack(b"C", os.getpid(), 0))
            continue
        if command == b"peak" and contained:  # only the learner processes and their exercise
            spare = {*active, *_exercise_processes(set(active))}  # processes run into the call
            clean.kill_others(lambda: _reap(ctrl, active), spare=spare)
        if command in (b"peak", b"high"):  # a measured call: its start, its end
            measured = peak.start() if command == b"peak" else peak.end()
            ctrl.sendall(RECORD.pack(b"M", 0, measured))
            continue
        if command == b"kill":
            if pid in active:
                os.kill(pid, signal.SIGKILL)
            continue
        if pid & PLOTS and not active:  # (none alive: the sandbox has just been reset)
            worker.load_plots(contained)
        workdir = os.path.realpath(tempfile.mkdtemp(prefix="submission-"))
        pid = os.fork()
        if pid == 0:  # a learner process
            code = 0
            try:
                close_fds_except(fds[0])
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.setsid()
                worker.learner_main(fds[0], contained, workdir, hidden)
            except BaseException:
                import traceback

                traceback.print_exc()  # into the learner process's own output file
                code = 70
            finally:
                os._exit(code)
        for f in fds:
            os.close(f)
        active[pid] = "" if contained else workdir
        ended.update(_end_watch(pid))
        ctrl.sendall(RECORD.pack(b"S", pid, 0))


if __name__ == "__main__":
    serve(int(sys.argv[1]), sys.argv[2] == "contained")

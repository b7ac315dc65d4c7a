"""Inside the sandbox: a learner process locks itself down before any learner code runs.

Resource limits (memory, file size, processes, CPU time), a private working directory,
stdout/stderr sent to a file there (nothing the learner prints can look like a result), and an
audit hook that refuses, with a clear message, what the operating system's sandbox would stop
anyway: writing outside the working directory, processes, sockets, ctypes, threads, switching the
watch off. The hook is a teacher, not a wall (see SECURITY.md): learner code can reach
:attr:`Lockdown.learner` and switch it off, and the OS layer still holds.
"""

from __future__ import annotations

import ctypes
import math
import os
import resource
import sys

import torch

from autograder.sandbox.inside.watch import report
from autograder.sandbox.protocol import NOBODY, Setup, readable_by_others

PROCESS_LIMIT = 64  # processes and threads of one sandbox (a fork bomb stops here)
FILE_SIZE_LIMIT = 16 * 2**20
# Open files per process: a learner process has 7 open with torch and matplotlib loaded and a
# figure saved (measured); each open pipe or socket can hold buffers that no other cap counts.
OPEN_FILES_LIMIT = 64
# Queued signals (real-time, or sent with a siginfo): each holds 36 bytes of the sender's data in
# kernel memory no measure counts; Python and torch queue none. The host's limit scales with RAM.
PENDING_SIGNALS_LIMIT = 64
LIBC = ctypes.CDLL(None, use_errno=True)  # loaded now: learner code may not load ctypes
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
# Landlock (Linux 5.13+): landlock_create_ruleset and landlock_restrict_self, the same numbers on
# x86_64 and aarch64; the access rights handled: making character and block devices (ABI 1).
_LANDLOCK_CREATE_RULESET, _LANDLOCK_RESTRICT_SELF = 444, 446
_LANDLOCK_MAKE_DEVICES = (1 << 6) | (1 << 11)
F_SETPIPE_SZ = 1031

_FILE_EVENTS = {
    "os.remove",
    "os.rename",
    "os.replace",
    "os.rmdir",
    "os.truncate",
    "os.link",
    "os.symlink",
    "os.chmod",
    "os.chown",
    "os.mkdir",
    "os.utime",
}
_REFUSED_EVENTS = {
    "os.kill",
    "os.killpg",
    "resource.setrlimit",
    "resource.prlimit",
    "os.fork",
    "os.forkpty",
    "os.system",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
}
_REFUSED_PREFIXES = (
    "ctypes.",
    "socket.",
    "subprocess.",
    "os.exec",
    "os.spawn",
    "os.posix_spawn",
    "pty.",
)


def prctl(option: int, value: int) -> None:
    """Linux's prctl (a no-op elsewhere: there, only process isolation is on offer anyway)."""
    if hasattr(LIBC, "prctl"):
        LIBC.prctl(option, value)


def own_domain() -> bool:
    """Enter a Landlock domain of this process's own, nested in the one it was forked in (red team
    round 9): a landlocked process may read, write or trace (``/proc/<pid>/mem``, ``ptrace``,
    ``/proc/<pid>/smaps``...) only a process in its own domain or one nested in it. The learner
    process enters one before any learner code runs, and each exercise process one nested in it:
    so an exercise process (and whatever it starts) cannot reach the memory of the learner process
    it was forked from, nor the server's (which has none: the server may still read and reset
    every learner process's memory figures). The rules handle only making device files, which no
    process here may do anyway. Whether it worked (False without Landlock: SECURITY.md)."""
    if not hasattr(LIBC, "syscall"):
        return False
    attr = ctypes.c_uint64(_LANDLOCK_MAKE_DEVICES)  # struct landlock_ruleset_attr, ABI 1's part
    size, zero = ctypes.c_long(ctypes.sizeof(attr)), ctypes.c_long(0)
    fd = LIBC.syscall(ctypes.c_long(_LANDLOCK_CREATE_RULESET), ctypes.byref(attr), size, zero)
    if fd < 0:
        return False
    try:
        LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # (bubblewrap has set it already)
        return LIBC.syscall(ctypes.c_long(_LANDLOCK_RESTRICT_SELF), ctypes.c_long(fd), zero) == 0
    finally:
        os.close(fd)


def map_code() -> None:
    """Map every page of this process's code (its executable file mappings) now: a fork maps
    its code again page by page as it first runs it, tens of MiB that a call measured later
    (``Submission.peak_memory``) would otherwise count as its own memory. Linux 5.14 and later
    (``MADV_POPULATE_READ``); elsewhere nothing."""
    if not hasattr(LIBC, "madvise"):
        return
    try:
        with open("/proc/self/maps") as f:
            maps = [line.split() for line in f]
    except OSError:
        return
    for fields in maps:
        if len(fields) >= 6 and "x" in fields[1] and fields[5].startswith("/"):
            start, end = (int(a, 16) for a in fields[0].split("-"))
            LIBC.madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), 22)


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` (resolved) is ``folder`` or lies under it: a sibling whose name only
    begins with the folder's (``/tmp/submission-1X`` beside ``/tmp/submission-1``) is not."""
    folder = folder.rstrip(os.sep)
    return path == folder or path.startswith(folder + os.sep)


class Refused(PermissionError):
    """What the sandbox raises when learner code tries something it does not allow."""


class Lockdown:
    """The limits and the audit hook of one learner process, and the flag that switches the hook
    on while learner code runs (:meth:`learner_call`)."""

    def __init__(self, workdir: str, hidden: tuple[str, ...] = ()):
        self.profiling = False  # True only while the harness itself switches the profiler
        self.learner = False  # True while learner code runs
        self.refusals = []  # what the audit hook refused during the current call
        self.workdir = workdir
        self.hidden = tuple(os.path.realpath(p) for p in hidden)
        helpers = os.path.dirname(os.path.abspath(sys.modules["course_lib"].__file__))
        # the course's helpers stay importable where the checkout itself is hidden
        self.readable = {os.path.realpath(os.path.join(helpers, f)) for f in os.listdir(helpers)}
        # and so does what the OS sandbox mounts anyway: this folder and the protocol (a warning
        # or a traceback in the grader's helpers reads their source lines)
        inside = os.path.dirname(os.path.abspath(__file__))
        mounted = [os.path.join(inside, f) for f in os.listdir(inside)]
        mounted.append(os.path.join(os.path.dirname(inside), "protocol.py"))
        self.readable |= {os.path.realpath(p) for p in mounted}

    def learner_call(self, fn):
        """``fn()``, with the audit hook on."""
        self.learner = True
        try:
            return fn()
        finally:
            self.learner = False

    def lock_down(self, setup: Setup, contained: bool):
        os.chdir(self.workdir)
        out = os.open(os.path.join(self.workdir, "output.txt"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        try:
            with open("/proc/self/statm") as f:
                vm_bytes = int(f.read().split()[0]) * resource.getpagesize()
        except OSError:  # not Linux
            vm_bytes = 0
        limit = vm_bytes + setup.memory_limit
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if hasattr(resource, "RLIMIT_SIGPENDING"):  # Linux
            hard = resource.getrlimit(resource.RLIMIT_SIGPENDING)[1]
            signals = PENDING_SIGNALS_LIMIT if hard == resource.RLIM_INFINITY else hard
            signals = min(signals, PENDING_SIGNALS_LIMIT)
            resource.setrlimit(resource.RLIMIT_SIGPENDING, (signals, signals))
        files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        if files == resource.RLIM_INFINITY or files > OPEN_FILES_LIMIT:
            files = OPEN_FILES_LIMIT
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        # Loading runs under its own CPU limit; the hard limit stays open, so that each exercise
        # process can set its own (a process may lower a hard limit, never raise it).
        cpu = math.ceil(resource.getrusage(resource.RUSAGE_SELF).ru_utime + setup.load_cpu_limit)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))
        if contained:
            # Counted per user namespace: this sandbox's processes and threads, nobody else's.
            resource.setrlimit(resource.RLIMIT_NPROC, (PROCESS_LIMIT, PROCESS_LIMIT))
        elif os.geteuid() == 0 and readable_by_others(os.path.dirname(os.__file__)):
            # without the OS sandbox, at least never run learner code as root
            os.chown(self.workdir, NOBODY, NOBODY)
            os.chown(os.path.join(self.workdir, "output.txt"), NOBODY, NOBODY)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        os.environ["HOME"] = self.workdir
        torch.set_num_threads(1)
        sys.addaudithook(self.audit)
        # The watchers see one thread: a thread of the learner's could run what is forbidden
        # unseen, so learner code starts none (grading needs none).
        import _thread
        import threading

        def no_threads(*args, **kwargs):
            if self.learner:
                self.refuse("starting threads")
            return start_new_thread(*args, **kwargs)

        start_new_thread = _thread.start_new_thread
        _thread.start_new_thread = threading._start_new_thread = no_threads

    def refuse(self, what):
        self.refusals.append(what)
        report("refused", what)
        raise Refused(f"the grader's sandbox does not allow {what}")

    def audit(self, event, args):
        # Raised for every read of a frame's f_code, so for every Python call the forbidden-call
        # profiler sees: nothing here refuses it, and the hook says so first (it ran through every
        # test below for each call, an eighth of an exercise process's time)
        if event == "object.__getattr__" or not self.learner:
            return
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return
            real = os.path.realpath(os.fsdecode(path))
            writes = (mode and any(c in mode for c in "wax+")) or (
                flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC)
            )
            if writes and not (_inside(real, self.workdir) or real == "/dev/null"):
                self.refuse(f"writing {path}")
            if self.hidden and real.startswith(self.hidden) and real not in self.readable:
                self.refuse(f"reading {path}: write your own code")
        elif event in ("sys.setprofile", "sys.settrace", "threading.setprofile"):
            if not self.profiling:
                self.refuse("changing the profiler")
        elif event in _FILE_EVENTS:
            paths = [a for a in args if isinstance(a, str | bytes | os.PathLike)]
            for p in paths:
                if not _inside(os.path.realpath(os.fsdecode(p)), self.workdir):
                    self.refuse(f"{event.replace('os.', '')} on {os.fsdecode(p)}")
        elif event in _REFUSED_EVENTS or event.startswith(_REFUSED_PREFIXES):
            self.refuse(event)
        elif event == "fcntl.fcntl" and args[1] == F_SETPIPE_SZ:  # (the seccomp filter's too)
            self.refuse("resizing a pipe (fcntl F_SETPIPE_SZ): its buffer is memory no cap counts")

    def set_profile(self, fn) -> None:
        """``sys.setprofile(fn)`` by the harness itself (the hook lets this one through)."""
        self.profiling = True
        sys.setprofile(fn)
        self.profiling = False

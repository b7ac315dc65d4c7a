"""Between two submissions in a kept sandbox: nothing of the last one may be left for the next.

The sandbox's server (:mod:`autograder.sandbox.inside.zygote`) is the sandbox's pid 1 (non-dumpable:
learner code can neither trace it nor kill it), but runs as the same uid as learner code, so
learner code can change what the server owns: the tmpfs roots' mode and extended
attributes (a default ACL among them), what lies in them (files, folders, fifos, sockets), and the
server's own priority, CPU set and limits (which every later learner process inherits), and it can
leave processes running. :func:`reset` kills every process, restores what the server can and
empties every tmpfs; :func:`verify` then checks that the sandbox is as it was when it started,
and the server discards the sandbox (it exits) when it is not: it is never handed on unclean.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import resource
import signal
import stat
import struct
import time
from collections.abc import Collection

from autograder.sandbox.protocol import TMPFS

MODE = 0o1777  # every tmpfs root (bubblewrap's --perms; a remount cannot change a tmpfs's mode)
_LIMITS = sorted({getattr(resource, n) for n in dir(resource) if n.startswith("RLIMIT_")})


def own_state() -> tuple:
    """What this process is that a process of the same uid could change and its forks inherit:
    its priority, scheduling policy, CPU set and resource limits; and who the sandbox's pid 1 is
    (:func:`init`)."""
    return (
        os.getpriority(os.PRIO_PROCESS, 0),
        os.sched_getscheduler(0),
        frozenset(os.sched_getaffinity(0)),
        tuple(resource.getrlimit(r) for r in _LIMITS),
        init(),
    )


def init() -> tuple | None:
    """Who pid 1 is: whether it is this server, its program and command line (in the sandbox,
    ``bwrap --as-pid-1`` makes the server pid 1; None where /proc/1 cannot be read)."""
    try:
        with open("/proc/1/cmdline", "rb") as f:
            return os.getpid() == 1, os.readlink("/proc/1/exe"), f.read()
    except OSError:
        return None


def kill_others(reap, spare: Collection[int] = (), wait: float = 5.0) -> bool:
    """Kill every process of the sandbox but this server (its pid 1) and those in ``spare``, again
    until none is left (one may fork meanwhile), ``reap``-ing this server's children; whether
    none was left within ``wait`` s (with ``spare``, a zombie it has not waited for counts as
    gone)."""
    keep = {os.getpid(), *spare}
    deadline = time.monotonic() + wait
    while True:
        reap()  # (this server is the init: every orphan is its child)
        others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in keep]
        # a zombie of this server's is not gone until reaped (at the next look)
        live = [p for p in others if _state(p) not in (("Z", False), ("", False))]
        if not live and (spare or not others):
            return True
        if time.monotonic() > deadline:
            return False
        for pid in live:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


def _state(pid: int) -> tuple[str, bool]:
    """A process's state letter ("" once it is gone), and whether this server is its parent."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0], int(fields[1]) == os.getpid()
    except (OSError, IndexError, ValueError):
        return "", False


def restore(place: str) -> None:
    """The tmpfs root ``place`` as it was made: no extended attribute (a user one, a default ACL),
    mode :data:`MODE`."""
    with contextlib.suppress(OSError):
        for name in os.listxattr(place):
            with contextlib.suppress(OSError):
                os.removexattr(place, name)
    with contextlib.suppress(OSError):
        os.chmod(place, MODE)


STAMP_NS = 0  # every tmpfs root's access and modification times after a reset
_FS_IOC_GETFLAGS, _FS_IOC_SETFLAGS = 0x80086601, 0x40086602  # <linux/fs.h>, 64-bit


def settle(place: str) -> None:
    """The root's times and inode flags (``chattr``) as every reset leaves them: a learner owns the
    roots and could leave 64 bits in a time or set flags for the next submission to read (red team
    round 25)."""
    with contextlib.suppress(OSError):
        fd = os.open(place, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with contextlib.suppress(OSError):
                fcntl.ioctl(fd, _FS_IOC_SETFLAGS, struct.pack("i", 0))
            os.utime(fd, ns=(STAMP_NS, STAMP_NS))
        finally:
            os.close(fd)


def _flags(place: str) -> int:
    """A root's inode flags (0 where the file system has none to show)."""
    fd = os.open(place, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return struct.unpack("i", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, b"\0" * 4))[0]
    except OSError:
        return 0
    finally:
        os.close(fd)


def verify(state: tuple) -> str | None:
    """What is not as a fresh sandbox has it (None: clean): a process left, a tmpfs root whose
    owner, mode or extended attributes differ, anything in it, or this server's own state."""
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    if others:
        return f"processes left: {others[:5]}"
    for place in TMPFS:
        try:
            st = os.lstat(place)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                return f"{place} is not this server's folder"
            if stat.S_IMODE(st.st_mode) != MODE:
                return f"{place} has mode {stat.S_IMODE(st.st_mode):o}"
            if os.listxattr(place):
                return f"{place} has extended attributes"
            if (st.st_atime_ns, st.st_mtime_ns) != (STAMP_NS, STAMP_NS) or _flags(place):
                return f"{place} has times or inode flags a submission set"
            if os.listdir(place):
                return f"{place} is not empty"
            fs = os.statvfs(place)
            if fs.f_files - fs.f_ffree > 1:  # an inode still held (nothing may hold one now)
                return f"{place} still holds {fs.f_files - fs.f_ffree - 1} inodes"
        except OSError as e:
            return f"{place}: {e.strerror}"
    if init() != state[-1] or not state[-1] or not state[-1][0]:
        return "the sandbox's pid 1 is not this server (or no longer runs its program)"
    if own_state() != state:
        return "the server's priority, scheduling or limits were changed"
    return None


def reset(state: tuple, reap) -> str | None:
    """Kill everything (``reap``: this server's children), restore and empty every tmpfs and
    this server's CPU set; what is still not clean (None: all is)."""
    if not kill_others(reap):
        return "processes that do not end"
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, state[2])
    for place in TMPFS:
        restore(place)
        empty(place)
        settle(place)
    return verify(state)


def empty(place: str) -> None:
    """Delete everything in ``place``, iteratively and through folder descriptors: a learner's
    folders may be nested as deep as the inode cap allows, past Python's recursion limit (which
    ``os.walk`` and ``shutil.rmtree`` hit) and past PATH_MAX, and made unreadable or unwritable.
    Nothing else runs meanwhile (every other process is dead), so ``..`` is each folder's parent.
    What cannot be deleted is left for :func:`verify` to find."""
    try:
        fd = os.open(place, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    stack: list[tuple[str, list[str]]] = []  # (a folder's name, its parent's folders left)
    left = _empty_files(fd)
    while True:
        if left:
            name = left.pop()
            try:
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:
                continue
            stack.append((name, left))
            os.close(fd)
            fd, left = child, _empty_files(child)
        elif stack:
            name, left = stack.pop()
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = parent
            with contextlib.suppress(OSError):
                os.rmdir(name, dir_fd=fd)
        else:
            break
    os.close(fd)


def _empty_files(fd: int) -> list[str]:
    """Delete every entry of the folder ``fd`` but its folders (files, links, fifos, sockets),
    made ours to empty (a learner may have made them unwritable); their names."""
    folders = []
    with contextlib.suppress(OSError), os.scandir(fd) as entries:
        for entry in list(entries):
            if entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.chmod(entry.name, 0o700, dir_fd=fd)
                folders.append(entry.name)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.name, dir_fd=fd)
    return folders

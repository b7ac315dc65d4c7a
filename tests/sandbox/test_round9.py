"""The red team's breaks in round 8 (notes: redteam8), each tried through the real sandbox.

1. The full score matrix of ``tiled_attention`` in a ``MAP_SHARED`` anonymous pool, made resident
   by an earlier, unmeasured call and mapped by a second learner process too (a sleeping child of
   the exercise process, or the submission process it was forked from): its pages are
   ``Shared_Dirty``, in no process's ``Private_Dirty`` and raising no peak: 2/2. Now every learner
   process but the submission process and its newest child (the exercise process) is killed
   before a measured call, and the shared memory the learner's processes hold at its start
   (``Pss_Shmem``, summed: a page shared by two counts once) and the files already in the
   sandbox's tmpfs count as held.
2. The full matrix parked in the buffers of Unix socketpairs with a large ``SO_SNDBUF`` (kernel
   memory, in no process's RSS): 2/2. And ``vmsplice`` of one 4 KiB page of a transparent huge
   page pinned all 2 MiB of it in a pipe, mapped by no process (2.5 GiB from one process). The
   seccomp filter now refuses socket, socketpair, vmsplice and fcntl ``F_SETPIPE_SZ``.
"""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from autograder.core.judge import judge_source
from autograder.sandbox.host.submission import Submission, Tampered
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round4 import GOOD_MASK, field, kept

HOSTILE = Path(__file__).parent / "hostile"
pytestmark = NEEDS_BWRAP


class Exercise:
    name, time_limit = "f", 20.0


# -- 1. a shared pool, resident before the call -------------------------------------------------
@pytest.mark.parametrize(
    "attack", ["shares_a_pool_with_a_child.py", "shares_a_pool_with_its_parent.py"]
)
def test_a_shared_pool_made_resident_before_the_measured_call_counts_as_its_memory(attack):
    [r] = judge_source((HOSTILE / attack).read_text(), ["tiled_attention"])
    assert not r.passed and r.points == 0, r


SHARES = """import mmap
import numpy as np
_POOL = mmap.mmap(-1, 96 * 2**20)  # MAP_SHARED | MAP_ANONYMOUS, in the submission process
np.frombuffer(_POOL, np.uint8)[::4096] = 1  # written: resident
def touch():
    return int(np.frombuffer(_POOL, np.uint8)[::4096].sum())  # mapped here too: Shared_Dirty
def f(n):
    return n
"""


def test_shared_memory_held_at_the_start_of_the_call_counts():
    """96 MiB of MAP_SHARED memory written by the submission process and mapped by the exercise
    process too (the shared pool of round 8, without a fork): held at the start of the measured
    call, it counts (less the allowance)."""
    with Submission([("shares.py", SHARES)], {}) as sub:
        sub.begin(Exercise)
        assert sub.call("touch") == 96 * 256
        _, held = sub.peak_memory("f", 1)
    assert held >= 60 * 2**20, held


FORKS = """import mmap, os, sys, time
import numpy as np
def _unwatch():
    frame = sys._getframe(1)  # the audit hook is a teacher, not a wall (SECURITY.md)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back
def pool(mib):
    _unwatch()
    m = mmap.mmap(-1, mib * 2**20)
    np.frombuffer(m, np.uint8)[::4096] = 1
    if os.fork() == 0:
        int(np.frombuffer(m, np.uint8)[::4096].sum())  # mapped by two: Shared_Dirty
        time.sleep(600)
        os._exit(0)
    globals()["_POOL"] = m
    return mib
def f(n):
    return n
"""


def test_a_helper_process_holding_a_shared_pool_fails_the_measured_call():
    with Submission([("forks.py", FORKS)], {}) as sub:
        sub.begin(Exercise)
        sub.call("pool", 96)
        with pytest.raises(Tampered, match="could not measure the memory"):
            sub.peak_memory("f", 1)  # the helper, killed first, is left a zombie: not waited for


# -- 2. kernel buffers outside every process's memory -------------------------------------------
def test_scores_parked_in_socket_buffers_are_refused():
    [r] = judge_source((HOSTILE / "parks_scores_in_sockets.py").read_text(), ["tiled_attention"])
    assert not r.passed and r.points == 0, r


BUFFERS = """import ctypes, errno, fcntl, os, socket, sys
def _unwatch():
    frame = sys._getframe(1)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back
def _errno(fn):
    try:
        fn()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, "?")
def causal_mask(seq_len, device=None):
    if __WATCHED__:
        fcntl.fcntl(os.pipe()[0], 1031, 2**20)
    _unwatch()
    r, w = os.pipe()
    libc = ctypes.CDLL(None, use_errno=True)
    page = ctypes.create_string_buffer(4096)
    iov = (ctypes.c_void_p * 2)(ctypes.addressof(page), 4096)
    got = libc.vmsplice(w, iov, 1, 0)
    vms = "ok" if got >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
    found = {
        "pair": _errno(socket.socketpair),
        "sock": _errno(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
        "grow": _errno(lambda: fcntl.fcntl(w, 1031, 2**20)),
        "getsz": _errno(lambda: fcntl.fcntl(w, 1032)),
        "another": _errno(os.pipe),
        "vmsplice": vms,
    }
    raise RuntimeError(" ".join(f"{k}={v} ;" for k, v in found.items()))
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="seccomp: 2 CPUs")
def test_sockets_vmsplice_and_pipe_resizing_are_refused_and_the_next_student_is_unaffected():
    a = kept(BUFFERS.replace("__WATCHED__", "False"))
    for what in ("pair", "sock", "grow", "vmsplice"):
        assert field(a, what) == "EPERM", (what, a)  # the seccomp filter, under the hook
    assert field(a, "getsz") == "ok" and field(a, "another") == "ok", a  # plain pipes work
    w = kept(BUFFERS.replace("__WATCHED__", "True"))  # the audit hook first, with its message
    assert not w.passed and "does not allow resizing a pipe (fcntl F_SETPIPE_SZ)" in w.message, w
    assert kept(GOOD_MASK).passed

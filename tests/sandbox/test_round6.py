"""The red team's breaks after round 5 (notes: redteam4), each tried through the real sandbox.

The sandbox's pid 1 was bubblewrap's own init, a dumpable process of the learner's uid: learner
code traced it and made it run its own program, which outlived the reset of a kept sandbox and
killed the next students' processes, computed a full score matrix outside the measured process,
and escaped the process limits. Now the server is pid 1 (``bwrap --as-pid-1``): non-dumpable, so
nothing traces it or writes its memory; an init, so no signal from inside kills it; and the
seccomp filter refuses ptrace, process_vm_readv/writev and ioprio_set aimed at another process.
"""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round4 import GOOD_MASK, field, kept

HOSTILE = Path(__file__).parent / "hostile"
pytestmark = NEEDS_BWRAP


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the attack's syscall numbers: x86-64")
def test_taking_over_pid_1_is_refused_and_the_next_student_scores_full_marks():
    a = kept((HOSTILE / "takes_over_pid1.py").read_text())
    assert not a.passed, a
    assert field(a, "me") != "1", a  # learner code is not pid 1: the server is
    for what in ("attach", "seize", "vmread", "ioprio"):  # the seccomp filter
        assert field(a, what) == "EPERM", (what, a)
    for what in ("memw", "memr"):  # the server is non-dumpable
        assert field(a, what) in ("EACCES", "EPERM"), (what, a)
    for what in ("SIGKILL", "SIGTERM", "SIGSEGV", "SIGHUP"):  # an init: ignored from inside
        assert field(a, what) == "ok", (what, a)
    assert field(a, "server") == "yes", a  # still there, still the server
    for _ in range(2):  # the next students, in the same kept sandbox
        b = kept(GOOD_MASK)
        assert b.passed and b.points == b.max_points, b


def test_the_server_reaps_orphans_as_an_init_does():
    orphans = (
        "import os, sys, time\n"
        + (HOSTILE / "takes_over_pid1.py").read_text().split("def _try")[0]
        + "def causal_mask(seq_len, device=None):\n"
        "    _unwatch()\n"
        "    for _ in range(20):  # each child forks a grandchild and exits: an orphan of pid 1\n"
        "        if os.fork() == 0:\n"
        "            if os.fork() == 0:\n"
        "                os._exit(0)\n"
        "            os._exit(0)\n"
        "        os.wait()\n"
        "    time.sleep(1)\n"
        "    zombies = []\n"
        "    for p in os.listdir('/proc'):\n"
        "        if p.isdigit():\n"
        "            stat = open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()\n"
        "            zombies += [p] if stat[0] == 'Z' else []\n"
        "    raise RuntimeError(f'zombies={len(zombies)} ;')\n"
    )
    r = kept(orphans)
    assert field(r, "zombies") == "0", r
    assert kept(GOOD_MASK).passed


HUGE = """import ctypes, errno, sys, torch
def causal_mask(seq_len, device=None):
    frame = sys._getframe(1)  # the audit hook is a teacher, not a wall (SECURITY.md)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    address = libc.mmap(None, 2 * 2**20, 3, 0x22 | 0x40000, -1, 0)  # MAP_HUGETLB
    huge = errno.errorcode.get(ctypes.get_errno(), "?") if address in (None, 2**64 - 1) else "ok"
    plain = libc.mmap(None, 2 * 2**20, 3, 0x22, -1, 0)
    small = "ok" if plain not in (None, 2**64 - 1) else "failed"
    raise RuntimeError(f"huge={huge} ; small={small} ;")
"""


def test_memory_in_huge_pages_is_refused():
    """Huge pages are not in VmRSS/VmHWM, the peak the server measures (red team round 6: a full
    score matrix in MAP_HUGETLB memory scored 2/2 where the host had reserved huge pages). Without
    the filter, a host with none reserved answers ENOMEM; the filter answers EPERM everywhere."""
    a = kept(HUGE)
    assert field(a, "huge") == "EPERM", a
    assert field(a, "small") == "ok", a  # ordinary mmap is untouched

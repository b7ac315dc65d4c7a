"""Red team round 33 (notes: rt33).

Finding 1: the judge counted a sandbox's CPU time in /proc, where a process the kernel reaped
(its parent ignores SIGCHLD) is added to no one: definitions that spun such children, run again
in each exercise, were charged almost nothing of their load budget, and their load made the
machine look busy, so their waiting was excused. A sandbox now has a cgroup of its own where the
grader may make one (root: cgroup v1 cpuacct, or a writable v2 tree), which counts every
process that ran in it; and a load that hits its wall-clock backstop ends the submission's runs
of its definitions.

Finding 2: the sandbox's server read a learner process's whole ``/proc/<pid>/smaps`` into memory
to measure tiled_attention's peak; definitions that mapped one file 20000 times under a 100 KB
path made it 2 GB per process, and the server (no memory limit of its own) grew to 4.4 GiB. It is
read a line at a time now, at most ``SMAPS_MAX`` bytes; past that the process cannot be measured
(the measured call fails, as for any process whose memory cannot be read)."""

from __future__ import annotations

import os

import pytest

from autograder.sandbox.host.cgroup import CpuGroup
from autograder.sandbox.host.submission import Submission
from autograder.sandbox.inside import procfs
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round10 import UNWATCH


def test_smaps_is_read_up_to_its_cap_and_a_larger_one_cannot_be_measured(monkeypatch):
    pid = os.getpid()
    assert isinstance(procfs._private_anonymous(pid), int)  # this process: ~0.4 MB, well under
    with open(f"/proc/{pid}/smaps", "rb") as f:
        size = len(f.read())
    assert size < procfs.SMAPS_MAX // 16
    monkeypatch.setattr(procfs, "SMAPS_MAX", size // 2)
    assert procfs._private_anonymous(pid) is None
    lines = list(procfs._capped_lines(f"/proc/{pid}/smaps", size // 2))
    assert lines[-1] is None and sum(len(x) for x in lines[:-1]) <= size // 2


def _cgroups_here() -> bool:
    group = CpuGroup.make()
    if group is None:
        return False
    group.remove()
    return True


# Definitions whose child spins 2.5 CPU-s and ends unwaited for (SIGCHLD ignored: the kernel
# reaps it, and adds its time to no process's), the audit hook turned off first (a courtesy
# layer, as round 33 did): /proc's sums never see that time.
HIDES = (
    UNWATCH
    + """import os, signal, time
import torch
def _hide(seconds):
    _unwatch()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    child = os.fork()
    if child == 0:
        start = time.process_time()
        while time.process_time() - start < seconds:
            pass
        os._exit(0)
    while os.path.exists(f"/proc/{child}"):
        time.sleep(0.05)
    return seconds
_HIDDEN = _hide(2.5)
def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
"""
)


@NEEDS_BWRAP
@pytest.mark.skipif(not _cgroups_here(), reason="this grader may make no cgroup (not root)")
def test_cpu_time_of_children_the_kernel_reaped_is_counted():
    """Finding 1: the load's CPU time (charged to the definitions' budget, and the submission's
    own load when the judge tells a busy machine from it) includes the hidden child's."""
    with Submission([("hides.py", HIDES)], {}) as sub:
        assert sub.defines("causal_mask")
        assert sub._live_server._cgroup is not None
        assert sub.cpu >= 2.0, sub.cpu  # /proc's sums: ~0.1
        assert sub._load_left <= 2 * 30.0 - 2.0
    group = sub._live_server._cgroup.path
    sub._live_server.close()
    assert not os.path.exists(group)  # removed with its sandbox


@NEEDS_BWRAP
@pytest.mark.skipif(
    not os.path.isfile("/sys/fs/cgroup/cpu/cpu.shares") or not _cgroups_here(),
    reason="no cgroup v1 cpu controller this grader may use",
)
def test_a_sandbox_has_a_fair_share_of_the_cpus_of_its_own():
    """Round 34's note: one submission's 63 spinners, each in a session of its own (the kernel's
    per-session groups then count each as a group), would take the CPUs from a classmate's
    sandbox graded beside it. Each sandbox is one group of the cpu controller: one share."""
    with Submission([("good.py", "import os\nPID = os.getpid()\n")], {}) as sub:
        server = sub._live_server
        groups = [path for path, _ in server._cgroup._procs]
        assert any(path.startswith("/sys/fs/cgroup/cpu/") for path in groups), groups
        with open(f"/proc/{server._proc.pid}/cgroup") as f:
            lines = dict(line.strip().split(":", 2)[1:] for line in f)
        for path in groups:  # the sandbox's first process is in each (its children are born there)
            controller = path.split("/")[4]
            assert lines[controller] == "/" + os.path.relpath(path, f"/sys/fs/cgroup/{controller}")

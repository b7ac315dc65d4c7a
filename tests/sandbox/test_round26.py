"""Red team round 26 (notes: rt26, finding 3): the sandbox's five devices are the host's own
inodes, and "set the times to now" needs only write permission on them: learner code changed the
host's atime and mtime of ``/dev/null``, ``/dev/zero``, ``/dev/full``, ``/dev/random`` and
``/dev/urandom``, which every later sandbox reads. The server now makes each of their bind mounts
read-only (still devices: ``seal``), so every such change fails with ``EROFS``."""

from __future__ import annotations

import os
from pathlib import Path

from autograder.core.judge import judge_source
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round2 import GOOD_MASK

HOSTILE = Path(__file__).parent / "hostile"
DEVICES = ("null", "zero", "full", "random", "urandom")
# a correct submission that uses the devices as any program may: it reads /dev/urandom (directly,
# through os.urandom and through torch's seeding) and writes to /dev/null
USES_DEVICES = GOOD_MASK.replace(
    "def causal_mask(seq_len, device=None):\n",
    """import os
def causal_mask(seq_len, device=None):
    with open("/dev/null", "w") as sink:
        print("nothing to see", file=sink)
    with open("/dev/urandom", "rb") as source:
        assert len(source.read(8)) == 8
    assert len(os.urandom(8)) == 8
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    torch.seed()  # from /dev/urandom
    assert torch.randn(3).shape == (3,)
""",
)


def host_times() -> dict[str, tuple[int, int, int]]:
    return {
        name: (s.st_atime_ns, s.st_mtime_ns, s.st_ctime_ns)
        for name in DEVICES
        for s in [os.stat(f"/dev/{name}")]
    }


@NEEDS_BWRAP
def test_learner_code_cannot_change_the_host_devices_times():
    before = host_times()
    [r] = judge_source((HOSTILE / "touches_the_host_devices.py").read_text(), ["causal_mask"])
    attempts = 4 * len(DEVICES)  # by path, with explicit times, through two descriptors
    assert host_times() == before
    assert f"EROFS {attempts} of {attempts}, others: []" in r.message, r.message


@NEEDS_BWRAP
def test_a_submission_that_reads_and_writes_the_devices_still_passes():
    before = host_times()
    assert "torch.seed()" in USES_DEVICES
    [r] = judge_source(USES_DEVICES, ["causal_mask"])
    assert r.passed, r.message
    assert host_times() == before

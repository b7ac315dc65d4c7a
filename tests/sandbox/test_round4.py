"""The red team's breaks after round 3, each tried through the real sandbox, each gaining
nothing, and a classmate graded next in the same kept sandbox (as ``grade --workers 1`` does)
keeping its points and finding nothing of the attacker's.

1. Points without tiling by resetting its own peak memory (``/proc/self/clear_refs``) after
   building the full matrix: the server watches the peaks during the call, and a fall fails it.
2. State that outlived the reset: POSIX message queues and kernel keyrings (and io_uring) are
   refused by the seccomp filter.
3. Folders nested past Python's recursion limit and PATH_MAX no longer crash the reset.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.core.extract import from_file
from autograder.core.judge import judge_code, judge_source
from autograder.sandbox.host import pool
from tests.sandbox.marks import NEEDS_BWRAP

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"
pytestmark = NEEDS_BWRAP
GOOD_MASK = (
    "import torch\n"
    "def causal_mask(seq_len, device=None):\n"
    "    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()\n"
)
# the next student: reports its pid namespace (the same one: the sandbox was reset and kept) and
# what it finds in the writable places
PROBE = (
    "import os\n"
    "def causal_mask(seq_len, device=None):\n"
    "    mine = os.path.basename(os.getcwd())\n"
    "    found = sorted(set(os.listdir('/tmp')) - {mine}) + os.listdir('/dev/shm')\n"
    "    raise RuntimeError(f\"ns={os.readlink('/proc/self/ns/pid')} found={found} ;\")\n"
)


def kept(source: str, exercise: str = "causal_mask"):
    """``source``'s ``exercise``, graded in the kept sandbox (the one the previous call used)."""
    with pool.isolated(fresh=False):
        [result] = judge_source(source, [exercise], label="student.py")
    return result


def field(result, name: str) -> str:
    return result.message.split(f"{name}=", 1)[1].split(" ;")[0].split()[0]


# -- 1. resetting its own peak memory ------------------------------------------------------------
def test_resetting_its_own_peak_memory_after_the_full_matrix_fails_the_call():
    solution = from_file(ROOT / "solutions" / "09_efficient" / "09_efficient.ipynb")
    attack = (HOSTILE / "resets_peak.py").read_text()
    control = attack.replace("_forget_peak()\n    return", "return")  # the same, no reset
    assert control != attack
    [without] = judge_source(control, ["tiled_attention"])
    assert not without.passed and without.mistake == "materialises-full-matrix", without
    a = kept(attack, "tiled_attention")
    assert not a.passed and "reset its process's peak memory" in a.message, a
    with pool.isolated(fresh=False):
        [b] = judge_code(solution, ["tiled_attention"])
    assert b.passed, b


def test_a_peak_reset_during_the_call_is_named_and_memory_allocated_then_freed_still_counts():
    from autograder.sandbox.host.submission import Submission

    source = (
        "import os, time, torch\n"
        "def f(n, reset):\n"
        "    x = torch.ones(n, n)\n"
        "    time.sleep(0.2)  # held long enough to be seen, however busy the machine\n"
        "    total = float(x.sum())\n"
        "    del x\n"
        "    if reset:\n"
        "        d = os.open('/proc/self', os.O_RDONLY)\n"
        "        fd = os.open('clear_refs', os.O_WRONLY, dir_fd=d)\n"
        "        os.write(fd, b'5')\n"
        "    return total\n"
    )

    class Exercise:
        name, time_limit = "f", 10.0

    with Submission([("f.py", source)], {}) as sub:
        sub.begin(Exercise)
        value, grew = sub.peak_memory("f", 4096, False)
        assert value == 4096.0**2 and grew >= 4096**2 * 4 * 0.9, grew  # allocated, freed: counted
        with pytest.raises(Exception, match="reset its process's peak memory"):
            sub.peak_memory("f", 4096, True)


# -- 2. message queues, keyrings, io_uring -------------------------------------------------------
def test_message_queues_keyrings_and_io_uring_are_refused_and_leave_nothing_for_the_next():
    source = (HOSTILE / "keeps_state.py").read_text()
    a = kept(source.replace("__MODE__", "leave"))
    b = kept(source.replace("__MODE__", "look"))
    left = a.message.split("errnos ", 1)[1].split(" ;")[0]  # 1: EPERM, from seccomp
    assert left == "mq_open=1, add_key -4=1, add_key -5=1, io_uring_setup=1", a
    looked = b.message.split("errnos ", 1)[1].split(" ;")[0]
    assert looked == "mq_open=1, request_key=1, keyctl=1", b
    assert kept(GOOD_MASK).passed


# -- 3. folders nested past the recursion limit and PATH_MAX -------------------------------------
def test_folders_nested_1500_deep_are_emptied_and_the_sandbox_is_kept():
    a = kept((HOSTILE / "deep_folders.py").read_text())
    assert field(a, "depth") == "1500", a
    b = kept(PROBE)
    assert field(b, "ns") == field(a, "ns"), (a, b)  # reset, not discarded
    assert b.message.split("found=", 1)[1].split(" ;")[0] == "[]", b
    assert kept(GOOD_MASK).passed

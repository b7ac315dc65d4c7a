"""The red team's breaks in round 7 (notes: redteam7), each tried through the real sandbox.

1. Memory made resident before the measured call (a buffer written at the top level, before the
   exercise process is forked; or kept from an earlier, unmeasured call) held the whole score
   matrix without raising any process's VmRSS or VmHWM: ``tiled_attention`` 2/2. What one
   process alone holds written at the start (beyond an allowance) and how far that rises during
   the call (copies made on write) now count.
2. Files written to the working folder (a tmpfs: memory in no process's RSS) during the measured
   call count as its memory.
3. The audit hook's "inside the working folder" was a prefix test: a sibling folder whose name
   begins with the working folder's counted as inside.
4. The rows the large memory call is compared on were drawn from the generator that drew q, k and
   v, whose state the inputs tell: now from a generator of their own.
(The row loop that ignores ``block_size`` is a wrong file of lesson 09:
``tiled-block-size-ignored__row-loop.py``.)
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import torch

from autograder.core.judge import judge_source
from autograder.kit import Call, generator, randn
from autograder.kit.exercise import CheckFailure
from autograder.sandbox.host import submission
from autograder.sandbox.host.submission import Submission
from tests.sandbox.marks import NEEDS_BWRAP

HOSTILE = Path(__file__).parent / "hostile"


class Exercise:
    name, time_limit = "f", 20.0


# -- 1. a buffer resident before the call -------------------------------------------------------
@NEEDS_BWRAP
@pytest.mark.parametrize("attack", ["pool_before_the_fork.py", "pool_kept_between_calls.py"])
def test_a_buffer_made_resident_before_the_measured_call_counts_as_its_memory(attack):
    [r] = judge_source((HOSTILE / attack).read_text(), ["tiled_attention"])
    assert not r.passed and r.points == 0, r
    assert r.mistake == "materialises-full-matrix", r


HOLDS = """import numpy as np
_KEPT = []
def hold(mib):
    _KEPT.append(np.ones(mib * 2**18, dtype=np.float32))  # written: resident
def free():
    _KEPT.clear()
def f(n):
    return n
"""


@NEEDS_BWRAP
def test_what_a_process_holds_at_the_start_counts_and_memory_freed_before_does_not():
    with Submission([("holds.py", HOLDS)], {}) as sub:
        sub.begin(Exercise)
        _, fresh = sub.peak_memory("f", 1)
        sub.call("hold", 96)
        _, holding = sub.peak_memory("f", 1)
        sub.call("free")
        _, freed = sub.peak_memory("f", 1)
    assert fresh < 8 * 2**20, fresh
    assert holding >= 60 * 2**20, holding  # 96 MiB held, less the allowance (32)
    assert freed < 8 * 2**20, freed


# -- 2. files in the working folder -------------------------------------------------------------
WRITES = """import os
def store(mib):
    for i in range(0, mib, 8):  # files of 8 MiB (each file's size is capped)
        with open(f"parked{i}.bin", "wb") as f:
            for _ in range(min(8, mib - i)):
                f.write(b"x" * 2**20)
    return mib
def f(n):
    return n
"""


@NEEDS_BWRAP
def test_files_written_during_the_measured_call_count_as_its_memory():
    with Submission([("writes.py", WRITES)], {}) as sub:
        sub.begin(Exercise)
        _, nothing = sub.peak_memory("f", 1)
        _, stored = sub.peak_memory("store", 40)
    assert nothing < 8 * 2**20, nothing
    assert stored >= 40 * 2**20, stored


# -- 3. a sibling of the working folder ----------------------------------------------------------
SIBLING = """import os
def write_beside():
    with open(os.getcwd().rstrip("/") + "X", "w") as f:
        f.write("not inside")
    return 1
"""


@NEEDS_BWRAP
def test_a_folder_whose_name_begins_with_the_working_folders_is_outside_it():
    with Submission([("sibling.py", SIBLING)], {}) as sub:
        sub.begin(Exercise)
        with pytest.raises(submission.Tampered, match="writing"):
            sub.call("write_beside")


# -- 4. the compared rows -----------------------------------------------------------------------
def test_the_rows_compared_are_not_those_the_inputs_generator_would_draw():
    memory = importlib.import_module("autograder.lessons.09_efficient.memory")
    g = generator(5)
    q, k, v = (randn(g, 1, 512, 8) for _i in range(3))
    predicted = torch.randperm(512, generator=g)[: memory.MEMORY_ROWS]  # the old draw
    out = torch.zeros(1, 512, 8)
    out[:, predicted] = torch.softmax(q[0, predicted] @ k[0].T / 8**0.5, -1) @ v[0]
    c = Call("tiled_attention", q, k, v, block_size=64)
    with pytest.raises(CheckFailure):
        memory._expect_rows_close(out, (q, k, v), False, c)

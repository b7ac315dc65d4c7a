"""A garbage collection is not the learner's memory.

The sandbox's server has torch and Dynamo loaded (about 80 MiB of Python objects; matplotlib too,
once code that plots has run there)
before it forks a learner process. A full collection in a forked process touches every object it
scans: each page it touches is copied on write, and the copies were counted as memory the learner's
call used. A correct ``tiled_attention`` that called ``gc.collect()`` (to free what earlier calls
left, say) failed its measured call for 81 MiB, named as building the full matrix. The server and
each learner process now freeze what they hold before they fork (``gc.freeze``).
"""

from __future__ import annotations

from autograder.sandbox.host.submission import Submission
from tests.sandbox.marks import NEEDS_BWRAP

pytestmark = NEEDS_BWRAP
MiB = 2**20

COLLECTS = """
import gc

import torch

gc.collect()  # in the learner process, where the definitions are loaded


def collected(n):
    gc.collect()  # in the exercise process, during the measured call
    return float(torch.ones(n).sum())
"""


class Collected:
    name, time_limit, measures_memory = "collected", 20.0, True


def test_a_full_collection_in_or_before_a_measured_call_is_not_charged():
    with Submission([("collects.py", COLLECTS)], {}) as sub:
        sub.begin(Collected)
        total, grew = sub.peak_memory("collected", 1024)
    assert total == 1024.0
    assert grew < 8 * MiB, f"gc.collect() raised the peak by {grew / MiB:.1f} MiB"

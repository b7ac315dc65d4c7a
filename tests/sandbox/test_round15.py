"""The red team's breaks in round 15 (notes: rt15): messages that cost the judge far more than
their size, and forged figures in the learner process's report of how an exercise ended.

1. A reply of 2 KB held lists that share their items, 100 references per level, 20 levels
   (a pickle stores each list once): the judge rebuilt 10**40 items (76 s and 2 GB at 10**8),
   and a class's ``grade`` stopped. Now a message reaching more than ``MAX_ITEMS`` values,
   shared ones counted each time, is refused before anything reads it.
2. A reply archive with thousands of directory entries, each with a 64 KiB extra field:
   Python's zipfile parses them in quadratic time (75 s of the judge's CPU per reply). The
   directory's size and entry count are checked from the end record first.
3. ``cpu = 1e300`` in the "exited" report turned off the notebook's wait budget and made a
   sleeping exercise look busy (retried); a status of 2**40 made ``os.WIFSIGNALED`` raise in the
   judge ("the grader failed"). The CPU figure is capped by the judge's own reading of the
   sandbox's CPU (autograder/sandbox/host/submission.py), and parse refuses impossible ones.
"""

from __future__ import annotations

import io
import zipfile

import pytest
from lesson_files import BASE

from autograder.sandbox.host.replies import Opaque, from_plain
from autograder.sandbox.protocol import MAX_ITEMS, ProtocolError, encode, parse
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round3 import attacker_then_classmate, hostile


def laughs(width: int, depth: int):
    v = 0
    for _ in range(depth):
        v = [v] * width
    return v


def test_a_message_of_shared_lists_is_refused_before_it_is_walked():
    frame = encode({"type": "reply", "trace": None, "value": laughs(100, 20)})
    assert len(frame) < 8 * 2**10
    with pytest.raises(ProtocolError, match="values"):
        parse(frame)
    within = laughs(2, 15)  # 2**16 values: under the limit, read as it was
    assert parse(encode({"type": "reply", "trace": None, "value": within}))["value"] == within
    assert 2**16 < MAX_ITEMS


def test_an_opaque_value_is_text_only():
    assert isinstance(from_plain({"__opaque__": "Module", "repr": "M()"}, {"cpu"}), Opaque)
    assert not isinstance(from_plain({"__opaque__": [1], "repr": ""}, {"cpu"}), Opaque)


def test_an_archive_with_a_large_directory_is_refused_before_zipfile_reads_it():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for i in range(2000):
            archive.writestr(f"archive/{i}", b"")
    with pytest.raises(ProtocolError, match="directory that large"):
        parse(out.getvalue())


@pytest.mark.parametrize("status, cpu", [(2**40, 0.1), (-1, 0.1), (0, float("nan")), (0, 1e309)])
def test_an_exited_report_with_an_impossible_status_or_cpu_time_is_refused(status, cpu):
    frame = encode({"type": "exited", "status": status, "cpu": cpu, "wall_limit_hit": False})
    with pytest.raises(ProtocolError):
        parse(frame)
    ok = encode({"type": "exited", "status": 9, "cpu": 1e300, "wall_limit_hit": False})
    assert parse(ok)["cpu"] == 1e300  # possible on its face: capped by the judge's own reading


@NEEDS_BWRAP
def test_a_reply_of_shared_lists_is_refused_and_a_classmate_is_graded():
    attack = BASE + "\n\n" + hostile("billion_laughs.py", w=100, d=20)
    a, b = attacker_then_classmate(attack, "scaled_dot_product_attention", BASE)
    assert not a.passed and a.mistake == "tampering", a
    assert b.passed, b


FORGES_CPU = """
import sys

worker = sys.modules["autograder.sandbox.inside.worker"]
_encode = worker.encode


def encode(message):
    if isinstance(message, dict) and message.get("type") == "exited":
        message = {**message, "cpu": 1e300}
    return _encode(message)


worker.encode = encode


def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
"""


@NEEDS_BWRAP
def test_a_forged_cpu_figure_counts_no_more_than_the_judge_read():
    import torch

    from autograder.sandbox.host.submission import Submission

    class Exercise:
        name, time_limit = "attention_scores", 20.0

    with Submission([("forges.py", FORGES_CPU)], {}) as sub:
        for _ in range(2):
            sub.begin(Exercise)
            sub.call("attention_scores", torch.ones(1, 2, 2), torch.ones(1, 2, 2))
            sub._end_exercise()
    assert sub.cpu < 5.0, sub.cpu  # not 1e300: the wait budget still applies

"""The red team's breaks in round 14 (notes: rt14), each tried through the real sandbox.

1. A reply tensor that claims more elements than its storage holds (a stride-0 view of one
   element with shape (2**31, 2**31): a few hundred bytes on the wire) passed the frame limit;
   a failing ``scaled_dot_product_attention`` is called twice by ``naming_randomness``, and
   ``torch.equal`` of the two replies walked 2**62 elements in the judge, which has no time limit:
   ``check`` never answered and a class's ``grade`` stopped for everyone. Now the judge refuses a
   reply tensor that is not strided or has more elements than its storage.
2. A sparse reply tensor was blamed on the grader ("the grader failed on this exercise"): it is
   refused as a reply that is not one, the learner's doing.
3. The grade table quoted a leading formula character but not a leading quote, which reading the
   table back strips: students ``'-bob`` and ``-bob`` became one in the LMS exports.
"""

from __future__ import annotations

import pytest
import torch
from lesson_files import BASE

from autograder.grade.outputs.table import _unescape, csv_cell
from autograder.sandbox.host.replies import from_plain
from autograder.sandbox.protocol import ProtocolError
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round3 import attacker_then_classmate, hostile


@pytest.mark.parametrize(
    "tensor",
    [
        torch.zeros(1).as_strided((2**31, 2**31), (0, 0)),
        torch.zeros(1, dtype=torch.bool).expand(64, 64),
        torch.eye(3).to_sparse(),
    ],
    ids=["stride-0-huge", "expanded", "sparse"],
)
def test_a_reply_tensor_larger_than_its_storage_or_not_strided_is_refused(tensor):
    with pytest.raises(ProtocolError):
        from_plain(tensor, {"cpu"})


def test_reply_tensors_the_sandbox_sends_are_kept():
    for t in (torch.ones(2, 3), torch.ones(4, 4).t(), torch.ones(6)[2:], torch.zeros(0, 3)):
        assert from_plain(t, {"cpu"}) is t
    meta = torch.empty(2, 3, device="meta")
    assert from_plain(meta, {"cpu", "meta"}) is meta


@NEEDS_BWRAP
@pytest.mark.parametrize("how", ["expand", "sparse"])
def test_a_reply_that_claims_a_huge_tensor_is_refused_and_a_classmate_is_graded(how):
    attack = BASE + "\n\n" + hostile("claims_a_huge_tensor.py", how=how)
    a, b = attacker_then_classmate(attack, "scaled_dot_product_attention", BASE)
    assert not a.passed and a.mistake == "tampering", a
    assert "the grader failed" not in a.message, a
    assert b.passed, b


@pytest.mark.parametrize("name", ["'-bob", "-bob", "'x", "''", "=1+1", "bob", "'", "@a"])
def test_a_grade_table_cell_reads_back_as_written(name):
    assert _unescape(csv_cell(name)) == name
    assert csv_cell("'-bob") != csv_cell("-bob")

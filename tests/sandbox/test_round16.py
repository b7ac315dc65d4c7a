"""The red team's breaks in round 16 (notes: rt16): replies whose values are few but costly.

1. One text of 4000 control characters referenced 125000 times stayed under round 15's count of
   values, and ``one_line`` escaped each reference anew (minutes of the judge's CPU); a trace's
   ``ops`` of shared lists were turned into text with ``str()`` (gigabytes). A message now also
   has a weight (texts by length, ints by size), and a trace's ops must be text.
2. Traced shapes of ints of 2000 bits made each ``math.prod`` in lesson 09's trace check cost a
   second; ``inf`` made ``int()`` raise in the judge ("the grader failed"). A traced size is a
   plain int below 2**63, a shape has at most 16 dims, a trace lists at most 2**16 shapes.
"""

from __future__ import annotations

import pytest

from autograder.sandbox.host.replies import MAX_TRACED, trace_of
from autograder.sandbox.protocol import ProtocolError, encode, parse


def reply(value, trace=None) -> bytes:
    return encode({"type": "reply", "trace": trace, "value": value})


def test_a_long_text_referenced_many_times_is_refused_by_its_weight():
    frame = reply(["\x01" * 4000] * 30000)
    assert len(frame) < 256 * 2**10
    with pytest.raises(ProtocolError, match="units"):
        parse(frame)
    assert parse(reply(["\x01" * 4000] * 10))["value"][0] == "\x01" * 4000


def trace(**changes):
    good = {"largest_numel": 6, "largest_shape": (2, 3), "shapes": [(2, 3)], "ops": ["aten.mm"]}
    return {**good, **changes}


@pytest.mark.parametrize(
    "bad",
    [
        trace(ops=[["\x00" * 100] * 100]),
        trace(shapes=[(2**2000,)]),
        trace(largest_numel=float("inf")),
        trace(floats=[(1,) * 17]),
        trace(shapes=[(1,)] * (MAX_TRACED + 1)),
        trace(shapes=[(True, 2)]),
    ],
    ids=["ops-not-text", "huge-int", "inf", "too-many-dims", "too-many-shapes", "bool"],
)
def test_a_trace_that_is_not_one_is_a_protocol_error(bad):
    with pytest.raises(ProtocolError, match="trace"):
        trace_of(bad)


def test_a_trace_as_the_sandbox_writes_it_is_read():
    t = trace_of(trace(floats=[(2, 3)]))
    assert t.largest_shape == (2, 3) and t.ops == {"aten.mm"} and t.floats == [(2, 3)]

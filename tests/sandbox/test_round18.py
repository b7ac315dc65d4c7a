"""The red team's breaks in round 18 (notes: rt18). One root: ``torch.load(weights_only=True)``
runs no arbitrary code, but what its allow-list permits still cost the judge, while it loaded
a reply and before any bound was checked:

1. ``_codecs.encode(s, "punycode")`` (quadratic, pure Python: hours of CPU from 32 KB) and
   ``bytearray(n)`` (gigabytes from 871 bytes) called by the pickle; a class's ``grade`` stalled
   and wrote nothing for anybody.
2. An OrderedDict whose instance attributes ``keys`` and ``values`` were ``set`` (BUILD state)
   counted as one value: round 15's billion laughs came back past the message's bounds.
3. A reply tensor whose ``double`` was replaced (``_rebuild_from_type_v2`` sets attributes) made
   a comparison with an empty tensor pass.
4. A message whose ``get`` was replaced made ``parse`` raise TypeError, not ProtocolError.
5. A thousand forged "forbidden" events made a 4 MB failure message.

Now the judge reads a message's pickle opcode by opcode before torch.load sees it
(``autograder/sandbox/plain_pickle.py``) and refuses any opcode, global or call torch.save does
not write for plain data; the bounds and the reply's checks take exact types only; a failure
message names at most three things.
"""

from __future__ import annotations

import io
import math
import struct
import zipfile
from collections import Counter, OrderedDict

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from lesson_files import BASE

from autograder.core.judge import _explain
from autograder.core.registry import all_exercises
from autograder.sandbox.host.replies import ForbiddenUsed, from_plain
from autograder.sandbox.protocol import PLAIN_DTYPES, ProtocolError, encode, parse
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round3 import attacker_then_classmate, hostile


def _text(s: str) -> bytes:
    b = s.encode("utf-8")
    return b"X" + struct.pack("<I", len(b)) + b


def with_pickle(pickle: bytes) -> bytes:
    """A torch.save archive of a reply, its data.pkl replaced by ``pickle``."""
    src = zipfile.ZipFile(io.BytesIO(encode({"type": "reply", "trace": None, "value": 0})))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            z.writestr(
                info.filename, pickle if info.filename.endswith("data.pkl") else src.read(info)
            )
    return out.getvalue()


def reply_calling(call: bytes) -> bytes:
    """A reply whose value is ``{"k": <what call leaves on the stack>}``."""
    head = b"\x80\x02}" + _text("type") + _text("reply") + b"s" + _text("trace") + b"Ns"
    return with_pickle(head + _text("value") + b"}" + _text("k") + call + b"ss.")


@pytest.mark.parametrize(
    "call, named",
    [
        (b"c_codecs\nencode\n" + _text("\u0100" * 50) + _text("punycode") + b"\x86R", "_codecs"),
        (b"c__builtin__\nbytearray\nJ\x00\x00\x00\x40\x85R", "bytearray"),
        (b"ccollections\nCounter\n" + _text("abc") + b"\x85R", "Counter"),
        (b"ctorch\nDoubleTensor\nK\x03\x85R", "DoubleTensor"),
        (b"ccollections\nOrderedDict\n]\x85R", "calling collections.OrderedDict"),
        (b"ctorch\nfloat32\n)R", "calling torch.float32"),
        (b"ctorch._utils\n_rebuild_parameter\n)R", "_rebuild_parameter"),
    ],
    ids=[
        "punycode",
        "bytearray",
        "counter",
        "legacy-tensor",
        "ordered-dict-items",
        "dtype",
        "param",
    ],
)
def test_a_pickle_that_calls_what_torch_save_never_writes_is_refused_before_loading(call, named):
    with pytest.raises(ProtocolError, match=named):
        parse(reply_calling(call))


@pytest.mark.parametrize(
    "value",
    [
        OrderedDict(x=1),
        Counter("ab"),
    ],
    ids=["ordered-dict", "counter"],
)
def test_a_dict_subclass_with_attributes_of_its_own_is_refused(value):
    value.keys = set  # round 18: hid its items from the message's bounds
    value.get = Counter  # round 18: made parse raise TypeError
    for message in ({"type": "reply", "trace": None, "value": value}, value):
        with pytest.raises(ProtocolError, match="BUILD|not a message"):
            parse(encode(message))


def test_a_tensor_with_attributes_of_its_own_is_refused():
    t = torch.ones(3, 1)
    t.double = torch.DoubleTensor  # round 18: `.double()` gave an empty tensor to compare with
    with pytest.raises(ProtocolError, match="_rebuild_from_type_v2"):
        parse(encode({"type": "reply", "trace": None, "value": t}))
    t = torch.ones(3, 1)
    t.__dict__["x"] = 1  # (the judge's own check, whatever the pickle)
    with pytest.raises(ProtocolError, match="attributes of its own"):
        from_plain(t, {"cpu"})


def test_a_message_in_torch_save_s_legacy_format_or_another_protocol_is_refused():
    buf = io.BytesIO()
    torch.save(
        {"type": "reply", "trace": None, "value": 1}, buf, _use_new_zipfile_serialization=False
    )
    with pytest.raises(ProtocolError, match="not an archive"):
        parse(buf.getvalue())
    buf = io.BytesIO()
    torch.save({"type": "reply", "trace": None, "value": 1}, buf, pickle_protocol=4)
    with pytest.raises(ProtocolError, match="protocol 4"):
        parse(buf.getvalue())


# What a learner's code may honestly return, as the sandbox sends it (inside/plain.py, to_plain).
_DTYPES = [getattr(torch, name) for name in PLAIN_DTYPES]
tensors = st.builds(
    lambda shape, dtype, meta: (
        torch.empty(shape, device="meta", dtype=dtype) if meta else torch.zeros(shape, dtype=dtype)
    ),
    st.lists(st.integers(0, 3), max_size=4),
    st.sampled_from(_DTYPES),
    st.booleans(),
)
leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.sampled_from(_DTYPES)
    | tensors
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return (
            type(b) is torch.Tensor
            and (a.shape, a.dtype, a.device) == (b.shape, b.dtype, b.device)
            and (a.device.type == "meta" or torch.equal(a, b))
        )
    if isinstance(a, float):
        return type(b) is float and (a == b or (math.isnan(a) and math.isnan(b)))
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=150, deadline=None)
@given(values)
def test_every_plain_reply_the_sandbox_sends_is_read_as_it_was_sent(value):
    message = parse(encode({"type": "reply", "trace": None, "value": value}))
    assert _same(value, message["value"])


def test_a_flood_of_reported_names_makes_a_short_message():
    names = [f"course_lib.{i:04d}" + "x" * 100 for i in range(1000)]
    message, mistake = _explain(all_exercises()["softmax"], ForbiddenUsed(names))
    assert mistake == "uses-reference" and len(message) < 800, len(message)
    message, mistake = _explain(
        all_exercises()["softmax"], ForbiddenUsed([f"torch.op{i}" for i in range(1000)])
    )
    assert mistake == "uses-builtin" and len(message) < 800, len(message)


@NEEDS_BWRAP
@pytest.mark.parametrize("mode", ["codec", "bytearray"])
def test_a_reply_that_works_while_loading_fails_at_once_and_the_classmate_keeps_its_points(mode):
    attack = BASE + "\n\n" + hostile("loads_with_calls.py", mode=mode)
    a, b = attacker_then_classmate(attack, "softmax", BASE)
    assert not a.passed and a.mistake == "tampering", a
    assert "calling" in a.message or "naming" in a.message, a
    assert b.passed, b

"""The red team's breaks in round 19 (notes: rt19). Round 18's reader bounded which opcodes a
reply's pickle may use, not the shape of what they build; and judge code used a reply's values
as sizes, loop bounds and message text:

1. A tuple of two references to the tuple below it, 40 deep (1.2 KB), as a dict's key: torch.load
   hashed it 2**40 times, in one C call (a class's ``grade`` wrote nothing for anybody); as a
   storage's key, it was hashed and printed into a file name (2.6 GB from 1.35 KB). Int keys of
   one hash made each dict insert quadratic.
2. A gradients reply naming one layer 125000 times: the judge's diagnosis compared every name
   with every other (about 39 minutes of its CPU).
3. A model with a 16384 x 16384 parameter on the meta device (no tampering): the judge built
   tensors of the shapes it reported (3.5 GB).
4. A state_dict reply of 1000 views of one 1 MiB storage: sent back in a request, pickle wrote
   each view's storage again (2.4 GB).
5. One forged value quoted whole in a failure message (14.5 MB).

Now the reader counts what each tuple reaches (shared ones each time) and wants text dict keys
and a storage's persistent id as torch.save writes it; a reply reaches tensors of at most
MAX_FRAME bytes, each view counted; a helper's reply lists at most HELPER_NAMES things and
reports parameters of at most HELPER_VALUES values; a result's message is cut.
"""

from __future__ import annotations

import struct
import time

import pytest
import torch
from lesson_files import BASE

from autograder.core.judge import judge_source
from autograder.core.result import MAX_MESSAGE, Result
from autograder.sandbox.host.replies import HELPER_NAMES, from_plain, helper_reply
from autograder.sandbox.protocol import MAX_FRAME, ProtocolError, encode, parse
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round3 import attacker_then_classmate, hostile
from tests.sandbox.test_round18 import _text, reply_calling, with_pickle


def shared_tuple(depth: int) -> bytes:
    """Pickle ops leaving ``(t, t)`` of ``(u, u)`` ... ``depth`` deep on the stack: 2**depth
    values in 11 bytes a level."""
    ops = bytearray(b"K\x01r" + struct.pack("<I", 1000))
    for i in range(depth):
        ops += b"j" + struct.pack("<I", 1000 + i) + b"\x86r" + struct.pack("<I", 1001 + i)
    return bytes(ops)


def test_a_tuple_that_reaches_two_to_the_forty_values_is_refused_before_it_is_hashed():
    frame = reply_calling(b"}" + shared_tuple(40) + b"Ns")  # {k: {<tuple>: None}}
    assert len(frame) < 2000
    start = time.process_time()
    with pytest.raises(ProtocolError, match="more than 262144 values"):
        parse(frame)
    assert time.process_time() - start < 1  # 2**40 hashes were hours


@pytest.mark.parametrize(
    "key", [b"K\x01", b"\x8a\x08" + (2**61 - 1).to_bytes(8, "little"), shared_tuple(3)]
)
def test_a_dict_key_that_is_not_text_is_refused_before_it_is_hashed(key):
    # ints of one hash (k * (2**61 - 1)) made every insert walk the others: quadratic
    for dict_ops in (b"}" + key + b"Ns", b"}(" + key + b"Nu", b"(" + key + b"Nd"):
        with pytest.raises(ProtocolError, match="dict key that is not text"):
            parse(reply_calling(dict_ops))


def test_a_storage_whose_key_is_not_text_is_refused_before_it_is_printed():
    plain = parse(encode({"type": "reply", "trace": None, "value": torch.ones(2)}))
    assert torch.equal(plain["value"], torch.ones(2))
    persid = b"(" + _text("storage") + b"ctorch\nFloatStorage\n" + shared_tuple(10) + _text("cpu")
    persid += b"K\x02tQ"  # BINPERSID of ("storage", FloatStorage, <tuple>, "cpu", 2)
    head = b"\x80\x02}" + _text("type") + _text("reply") + b"s" + _text("trace") + b"Ns"
    rebuild = b"ctorch._utils\n_rebuild_tensor_v2\n(" + persid + b"K\x00K\x02\x85K\x01\x85\x89"
    rebuild += b"ccollections\nOrderedDict\n)RtR"
    with pytest.raises(ProtocolError, match="storage of another form"):
        parse(with_pickle(head + _text("value") + rebuild + b"s."))


def test_views_of_one_storage_count_each_time_they_are_reached():
    big = torch.zeros(2**18)  # 1 MiB
    assert from_plain({f"k{i}": big[:] for i in range(200)}, {"cpu"})  # 200 MiB: read
    with pytest.raises(ProtocolError, match=f"more than {MAX_FRAME} bytes"):
        from_plain({f"k{i}": big[:] for i in range(1000)}, {"cpu"})
    with pytest.raises(ProtocolError, match=f"more than {MAX_FRAME} bytes"):
        from_plain([big[:1]] * 1000, {"cpu"})  # a value each; pickle writes 1 MiB for each
    meta = torch.empty(2**40, device="meta")  # a shape without values counts nothing
    assert from_plain([meta] * 4, {"cpu", "meta"})


def test_a_helper_reply_is_bounded_before_a_check_loops_over_it():
    names = {"output_has_grad": True, "params": {"a.x": None}, "uncalled": ["a"] * HELPER_NAMES}
    assert helper_reply("gradients", names) is names
    with pytest.raises(ProtocolError, match="more than 1024 uncalled"):
        helper_reply("gradients", {**names, "uncalled": ["a"] * (HELPER_NAMES + 1)})
    model = {"parameters": {"w.weight": [64, 64], "w.bias": [64]}}
    assert helper_reply("describe", model) is model
    for shape, refused in (
        ([16384, 16384], "parameters hold 268439616 values"),
        ([2**62, 2**62], "parameters hold"),
        ([1] * 9, "not a list of sizes"),
        ("64", "not a list of sizes"),
    ):
        with pytest.raises(ProtocolError, match=refused):
            helper_reply("describe", {"parameters": {**model["parameters"], "extra": shape}})
    assert helper_reply(None, ["a"] * 10**5)  # not a helper's reply: the message's bounds only


def test_a_result_message_is_cut():
    r = Result("softmax", False, 0, 1, "x" * (10 * MAX_MESSAGE), "tampering")
    assert len(r.message) <= MAX_MESSAGE + 2


@NEEDS_BWRAP
def test_a_model_with_a_huge_meta_parameter_fails_without_the_judge_building_it():
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    [r] = judge_source(BASE + "\n\n" + hostile("meta_parameter.py"), ["TinyTransformer"])
    assert not r.passed and "parameters hold" in r.message, r
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB
    assert grew < 512 * 1024, grew  # a 16384 x 16384 tensor is 1 GiB; it made 3.5 GB


@NEEDS_BWRAP
@pytest.mark.parametrize("mode, exercise", [("uncalled", "softmax"), ("views", "SelfAttention")])
def test_a_forged_helper_reply_fails_at_once_and_the_classmate_keeps_its_points(mode, exercise):
    attack = BASE + "\n\n" + hostile("forges_helper_replies.py", mode=mode)
    start = time.process_time()
    a, b = attacker_then_classmate(attack, exercise, BASE)
    assert time.process_time() - start < 30  # the judge's own CPU: minutes before
    assert not a.passed and a.mistake == "tampering", a
    assert "more than" in a.message, a
    assert b.passed, b

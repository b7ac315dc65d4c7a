"""The red team's breaks in round 20 (notes: rt20): a reply's shape, not its size, still set
the judge's cost.

1. One memoised tuple of 65536 sizes given to thousands of tensor rebuilds (5 pickle bytes
   each): each tensor keeps its own copy of its sizes (4.4 GB from a 137 KB reply; a class's
   ``grade`` peaked at 8.6 GB).
2. Helper replies holding tensors where the helper returns numbers: a (N, 1) and a (1, N) tensor
   as two losses or two derivatives made an N x N tensor in the judge's arithmetic (3.8 GB).
3. (no tampering) A tensor inside a list, as an answer or a return value: reprlib took its
   whole repr before cutting it (round 17's (2,)*22 tensor: 40 s and 2.9 GB of the judge's).

Now every call the pickle makes is charged the values it is given, against one budget per
message; a helper's reply holds tensors only where the helper returns them, and floats where it
returns floats; a tensor in a container is described by its shape, as one alone is.
"""

from __future__ import annotations

import time

import pytest
import torch

from autograder.kit.text import fmt_returned
from autograder.sandbox.host.replies import helper_reply
from autograder.sandbox.protocol import ProtocolError, encode, parse
from tests.sandbox.test_round18 import reply_calling

META = b"ctorch._utils\n_rebuild_meta_tensor_no_storage\n(ctorch\nfloat32\nh\x00h\x00\x89tR"


def meta_tensors_of(dims: int, count: int) -> bytes:
    """A reply's value: [sizes, t1, ..., tcount], each t a meta tensor given the one memoised
    tuple of ``dims`` sizes (as its size and its stride)."""
    sizes = b"(" + b"K\x01" * dims + b"tq\x00"
    return b"](" + sizes + META * count + b"e"


def test_one_tuple_of_sizes_given_to_many_rebuilds_is_refused_before_loading():
    frame = reply_calling(meta_tensors_of(65536, 3))
    start = time.process_time()
    with pytest.raises(ProtocolError, match="rebuilding tensors of more than"):
        parse(frame)
    assert time.process_time() - start < 1
    message = parse(reply_calling(meta_tensors_of(8, 200)))  # tensors as replies hold them
    assert [t.shape for t in message["value"]["k"][1:]] == [torch.Size([1] * 8)] * 200


def test_a_reply_of_many_ordinary_tensors_is_read():
    value = [torch.ones(2, 3) for _ in range(500)]  # (an archive holds 1024 entries)
    message = parse(encode({"type": "reply", "trace": None, "value": value}))
    assert len(message["value"]) == 500


@pytest.mark.parametrize(
    "helper, reply",
    [
        ("fit", [torch.ones(4, 1), torch.ones(1, 4)]),
        ("derivatives", [["arg", 0, torch.ones(4, 1), 1.0, 1.0, 1.0]]),
        ("describe", {"type": "x", "children": {"w_q": {"type": torch.ones(2)}}}),
        ("block_calls", {"blocks.0": torch.ones(4, 1)}),
    ],
)
def test_a_helper_reply_holding_a_tensor_where_it_returns_none_is_refused(helper, reply):
    with pytest.raises(ProtocolError, match="holding a tensor"):
        helper_reply(helper, reply)


def test_a_helper_that_returns_floats_gets_floats():
    losses = [2.3, 1.1, 0.4]
    assert helper_reply("fit", losses) is losses
    rows = [["arg", 0, None, 0.5, 0.5, 1.0], ["param", "w.weight", 0.25, 0.25, 0.25, 2.0]]
    assert helper_reply("derivatives", rows) is rows
    for helper, reply in (
        ("fit", [1.0, 10**400]),
        ("fit", [1.0, "2"]),
        ("fit", {"loss": 1.0}),
        ("derivatives", [["arg", 0, None, 0.5, 0.5]]),
        ("derivatives", [["arg", 0.5, None, 0.5, 0.5, 1.0]]),
        ("derivatives", [["arg", 0, None, [0.5] * 1000, 0.5, 1.0]]),
    ):
        with pytest.raises(ProtocolError, match="not the numbers it returns"):
            helper_reply(helper, reply)
    grads = {"output_has_grad": True, "args": [torch.ones(2)], "params": {}}
    assert helper_reply("gradients", grads) is grads  # the gradients themselves: allowed


def test_a_tensor_inside_a_container_is_described_by_its_shape():
    big = torch.zeros((2,) * 22, dtype=torch.bool)  # torch prints it element by element
    start = time.process_time()
    for value in ([big], (1, big), {"a": [big]}):
        text = fmt_returned(value)
        assert "tensor(shape=(2, 2" in text and len(text) <= 60, text
    assert time.process_time() - start < 1  # 40 s before
    assert fmt_returned([torch.ones(2)]) == "[tensor([1., 1.])]"  # a small one as it is

"""Trial 37's leftovers, the drills beyond the course: their own failures (a wrong shape or
dtype, a call that raised, no ValueError, a gradient, decode_step's note, the cache's parts)
stayed English in the Chinese edition. Each is said in the current language; what it quotes
(the call, dtypes, code) stays as it is."""

from __future__ import annotations

import re

import pytest
import torch

from autograder.drill.extra import checks_decoding, decode_probe, judging
from autograder.i18n import N_, use
from autograder.kit import Call
from autograder.kit.exercise import CheckFailure
from autograder.sandbox.host.replies import LearnerError

CJK = re.compile("[\u4e00-\u9fff]")
ENGLISH = re.compile(
    r"\b(has|have|shape|raised|returned|expected|gradient|reaches|wrong|argument|never|gave|"
    r"tokens|calls|tuple|scalar|holds|none|padded|targets|line|cell|the|cache)\b"
)
CODE = re.compile(
    r"\(logits, cache\)|torch\.\w+|decode_step|_drill_decode_steps|k_all|v_all|pad_id|"
    r"tokens\[:, 1:\]"
)


def said(action) -> str:
    with pytest.raises(CheckFailure) as caught:
        action()
    return caught.value.message


def raises(error: LearnerError):
    def target(*args, **kwargs):
        raise error

    return target


def returns(value):
    return lambda *args, **kwargs: value


class Noted:
    """A sandbox whose decode_step note is ``log``."""

    def __init__(self, log):
        self.log = log

    def get(self, name):
        return self.log


c = Call("f", torch.zeros(2, 3))
want = torch.zeros(3, 3, dtype=torch.float64)
FAILURES = {
    "not a tensor": lambda: judging.expect(3, want, c),
    "shape": lambda: judging.expect(torch.zeros(2, 3), want, c),
    "shape, plural": lambda: judging.expect(
        torch.zeros(2, 3), want, c, what=N_("the probabilities")
    ),
    "dtype": lambda: judging.expect(want.clone(), want, c, dtype=torch.float32),
    "dtype, plural": lambda: judging.expect(
        want.clone(), want, c, what=N_("the logits"), dtype=torch.float32
    ),
    "raised": lambda: judging.run(
        c, raises(LearnerError("RuntimeError", "boom", "  cell 2, line 3, in f: y = x @ x"))
    ),
    "no ValueError": lambda: judging.expect_raises(
        c, returns(1), N_("d_model must be a multiple of num_heads")
    ),
    "another error": lambda: judging.expect_raises(
        c,
        raises(LearnerError("TypeError", "bad")),
        N_("num_heads must be a multiple of num_kv_heads"),
    ),
    "no gradient": lambda: judging.expect_gradients({}, {"argument 1": want}, "f (backward)"),
    "gradient's shape": lambda: judging.expect_gradients(
        {"argument 1": torch.zeros(2)}, {"argument 1": want}, "f (backward)"
    ),
    "not a step": lambda: checks_decoding._expect_step(3, (want, (want, want)), c, ()),
    "not a cache": lambda: checks_decoding._expect_step(
        (want.float(), 3), (want, (want, want)), c, ()
    ),
    "the cache's k_all": lambda: checks_decoding._expect_step(
        (want.float(), (torch.zeros(2), want.float())), (want, (want, want)), c, ()
    ),
    "rebound note": lambda: decode_probe.decode_log(Noted("3, 1"), c),
    "never called": lambda: decode_probe.expect_cache_used(Noted([]), c, 0, 3, 2),
    "all tokens each call": lambda: decode_probe.expect_cache_used(Noted([3, 4, 5]), c, 0, 3, 2),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_a_drills_own_failure_is_said_in_chinese(case):
    with use("zh-CN"):
        message = said(FAILURES[case])
    words = CODE.sub("", message.replace(str(c), ""))
    assert CJK.search(message) and not ENGLISH.search(words), message
    with use("en"):
        assert not CJK.search(said(FAILURES[case]))


def test_english_agrees_in_number_and_names_the_argument():
    with use("en"):
        assert "the probabilities have shape (2, 3)" in said(FAILURES["shape, plural"])
        assert "the output has dtype float64, expected float32" in said(FAILURES["dtype"])
        assert "no gradient reaches argument 1" in said(FAILURES["no gradient"])
        assert "cell 2, line 3, in f" in said(FAILURES["raised"])

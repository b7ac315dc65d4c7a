"""[modifies-input]: a function that changes the caller's tensors in place is named, however
right its return value (issue 9: ``k.transpose_``, ``scores.masked_fill_``, ``x.sub_().exp_()``
and ``q /= sqrt(d)`` all passed).

The comparison runs next to the learner's call (``autograder.sandbox.inside.inplace``, called by the
sandbox worker); these tests run that half on the learner-style files of
``tests/sandbox/inplace/`` directly, the judge's half on the error it receives, and the whole
engine on the same files.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from lesson_files import BASE, slices

from autograder.kit import Call
from autograder.kit.calling import learner_failed
from autograder.sandbox.host.replies import LearnerError
from autograder.sandbox.inside.inplace import InputModified, InputSnapshot
from autograder.sandbox.protocol import INPUT_MODIFIED as KIND

INPLACE = sorted((Path(__file__).resolve().parent / "inplace").glob("*.py"))
g = torch.Generator().manual_seed(0)
INPUTS = {  # the exercise's arguments, and the parameter the in-place version changes
    "attention_scores": (
        (torch.randn(2, 3, 4, generator=g), torch.randn(2, 5, 4, generator=g)),
        "k",
    ),
    "scaled_attention_scores": (
        (torch.randn(3, 4, generator=g), torch.randn(5, 4, generator=g)),
        "q",
    ),
    "softmax": ((torch.randn(2, 5, generator=g),), "x"),
    "masked_scores": (
        (torch.randn(3, 4, generator=g), torch.rand(3, 4, generator=g) > 0.3),
        "scores",
    ),
}


def load(path: Path, name: str, source: str | None = None):
    namespace: dict = {}
    code = path.read_text() if source is None else source
    exec(compile(code, str(path), "exec"), namespace)  # our own test file
    return namespace[name]


def graded(path: Path) -> str:
    return re.search(r"^# grade: (\w+)$", path.read_text(), re.M).group(1)


def call(fn, args):
    args = tuple(a.clone() for a in args)
    inputs = InputSnapshot(fn, args, {})
    fn(*args)
    return inputs.check()


def test_every_in_place_mistake_of_the_issue_has_a_file():
    assert {graded(p) for p in INPLACE} == set(INPUTS)


@pytest.mark.parametrize("path", INPLACE, ids=lambda p: p.stem)
def test_an_in_place_change_of_an_input_is_found_and_names_the_parameter(path: Path):
    name = graded(path)
    args, changed = INPUTS[name]
    problem = call(load(path, name), args)
    assert isinstance(problem, InputModified) and type(problem).__name__ == KIND
    assert re.match(rf"(the (values|shape) of )?{changed} ", str(problem)), problem


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_the_correct_solution_leaves_its_inputs_alone(name: str):
    assert call(load(slices("plain")[0], name, BASE), INPUTS[name][0]) is None


def test_a_write_that_puts_back_the_same_values_is_still_seen():
    def sneaky(x):
        x.mul_(1.0)  # same values, but the caller's tensor was written
        return x.clone()

    assert "written to in place" in str(call(sneaky, (torch.ones(3),)))


def test_meta_inputs_are_compared_by_layout():
    def transposes(q, k):
        return q @ k.transpose_(-2, -1)

    meta = (torch.empty(2, 3, 4, device="meta"), torch.empty(2, 5, 4, device="meta"))
    assert "the shape of k (2, 5, 4) became (2, 4, 5)" in str(call(transposes, meta))


def test_the_judge_names_the_error_modifies_input_with_a_short_message():
    q, k = INPUTS["attention_scores"][0]
    c = Call("attention_scores", q, k)
    err = LearnerError(KIND, "the shape of k (2, 5, 4) became (2, 4, 5): your code changed ...")
    failure = learner_failed(c, err)
    assert failure.mistake == "modifies-input"
    assert failure.message.startswith(
        "attention_scores(q: (2, 3, 4), k: (2, 5, 4)) returned, but the shape of k (2, 5, 4) "
        "became (2, 4, 5)"
    )


@pytest.mark.parametrize("path", INPLACE, ids=lambda p: p.stem)
def test_the_engine_names_modifies_input(path: Path):
    from autograder.core.judge import judge_source

    [result] = judge_source(BASE + "\n\n" + path.read_text(), only=[graded(path)])
    assert (result.passed, result.mistake) == (False, "modifies-input"), result.message

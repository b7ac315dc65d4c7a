"""[created-on-cpu] for code that reads values (issue 9): ``padding_mask`` built from
``lengths.tolist()`` and ``torch.arange(L)`` in ``LearnedPositionalEmbedding.forward`` passed,
since the meta-device part of their checks is skipped or fooled.
``autograder.sandbox.inside.devices`` sees
a factory called without ``device=`` next to the learner's call (in the sandbox worker); these
tests run it on the learner-style files of ``tests/sandbox/device/`` directly, the judge's
half on the error it receives, and the whole engine on the same files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from lesson_files import BASE, slices

from autograder.kit import Call
from autograder.kit.calling import learner_failed
from autograder.sandbox.host.replies import LearnerError
from autograder.sandbox.inside.devices import DefaultDeviceFactories, has_tensor
from autograder.sandbox.protocol import CREATED_ON_DEFAULT_DEVICE as KIND

DEVICE = sorted((Path(__file__).resolve().parent / "device").glob("*.py"))
CALLS = {  # how each exercise is called: (construct args or None, call args)
    "padding_mask": (None, (torch.tensor([2, 4, 1]), 4)),
    "LearnedPositionalEmbedding": ((6, 4), (torch.randn(2, 3, 4),)),
}


def load(path: Path, name: str, source: str | None = None):
    namespace: dict = {}
    code = path.read_text() if source is None else source
    exec(compile(code, str(path), "exec"), namespace)  # our own test file
    return namespace[name]


def run(obj, name: str):
    ctor, args = CALLS[name]
    fn = obj(*ctor) if ctor is not None else obj
    assert has_tensor(args, {})
    with DefaultDeviceFactories() as factories:
        value = fn(*args)
    return factories.check(value)


@pytest.mark.parametrize("path", DEVICE, ids=lambda p: p.stem)
def test_a_factory_without_device_is_found_in_value_reading_code(path: Path):
    problem = run(load(path, path.stem), path.stem)
    assert problem is not None and type(problem).__name__ == KIND
    assert "without device=" in str(problem)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_correct_solution_makes_nothing_on_the_default_device(name: str):
    assert run(load(slices("plain")[0], name, BASE), name) is None


def test_scalars_and_like_factories_are_allowed():
    def fine(x):
        inf = torch.tensor(float("-inf"))  # 0 dims: mixes with any device
        return torch.where(torch.ones_like(x, dtype=torch.bool), x, inf) + x.new_zeros(x.shape)

    x = torch.randn(3)
    with DefaultDeviceFactories() as factories:
        fine(x)
    assert factories.check() is None


def test_the_judge_names_it_created_on_cpu():
    c = Call("padding_mask", torch.tensor([2, 4, 1]), 4)
    err = LearnerError(KIND, "torch.tensor was called without device=, so ...")
    failure = learner_failed(c, err)
    assert failure.mistake == "created-on-cpu"
    assert "returned, but torch.tensor was called without device=" in failure.message


@pytest.mark.parametrize("path", DEVICE, ids=lambda p: p.stem)
def test_the_engine_names_created_on_cpu(path: Path):
    from autograder.core.judge import judge_source

    [result] = judge_source(BASE + "\n\n" + path.read_text(), only=[path.stem])
    assert (result.passed, result.mistake) == (False, "created-on-cpu"), result.message


def _problem(fn, *args):
    with DefaultDeviceFactories() as factories:
        value = fn(*args)
    return factories.check(value)


def test_a_cpu_tensor_moved_to_the_inputs_device_before_use_is_correct():
    lengths = torch.tensor([2, 4, 1])
    assert _problem(lambda n: torch.arange(4).to(n.device)[None] < n[:, None], lengths) is None
    assert _problem(lambda n: torch.arange(4).to(n)[None] < n[:, None], lengths) is None
    assert _problem(lambda n: (torch.ones(3, 3).tril() > 0).to(n.device), lengths) is None
    assert _problem(lambda n: n + torch.arange(3).sum() + len(torch.zeros(5)), lengths) is None


def test_a_cpu_index_or_a_type_as_move_is_correct():
    """Trial 48: a GPU indexes its tensors with CPU indices (``weight[torch.arange(L)]``, a
    table's ``cos[positions]``, ``x[mask] = 0``), and ``.type_as(x)`` moves to x's device."""
    x = torch.randn(2, 3, 4)
    assert _problem(lambda x: x + x[0, torch.arange(3)], x) is None
    assert _problem(lambda x: x[:, torch.ones(3, 3, dtype=torch.bool).tril()[1]], x) is None

    def fill(x):
        x = x.clone()
        x[torch.arange(2)] = 0.0
        return x

    assert _problem(fill, x) is None
    assert _problem(lambda x: x + torch.arange(4).type_as(x), x) is None
    indexed = _problem(lambda x: x + torch.arange(24.0).view(2, 3, 4)[torch.arange(2)], x)
    assert indexed is not None and "torch.arange" in str(indexed)  # the CPU tensor indexed
    by_input = _problem(lambda i: torch.arange(5)[i].sum(), torch.tensor([1, 3]))
    assert by_input is not None  # a CPU tensor indexed by one on the inputs' device: refused
    to_cpu = _problem(lambda x: x.type_as(torch.arange(4.0)), x)  # x moved to where that one is
    assert to_cpu is not None and "torch.arange" in str(to_cpu)

    def cpu_values(x):
        x = x.clone()
        x[torch.arange(2)] = torch.zeros(3, 4)  # values on the CPU: a GPU refuses them
        return x

    assert _problem(cpu_values, x) is not None


def test_a_cpu_tensor_that_meets_an_input_or_is_returned_is_found():
    lengths = torch.tensor([2, 4, 1])
    met = _problem(lambda n: torch.arange(4)[None] < n[:, None], lengths)
    assert met is not None and "used it with your inputs' tensors" in str(met)
    met = _problem(lambda n: torch.arange(4).to(torch.int32)[None] < n[:, None], lengths)  # dtype
    assert met is not None
    returned = _problem(
        lambda n: torch.arange(4)[None] < torch.tensor(n.tolist())[:, None], lengths
    )
    assert returned is not None and "returned it" in str(returned)


def test_a_mask_computed_on_the_cpu_and_moved_back_is_correct():
    """Trial 47: lesson 04 says a mask made on the CPU and moved with .to(lengths.device) works;
    lengths.cpu() / .to("cpu") give back the input itself on the CPU (a copy on a GPU)."""
    lengths = torch.tensor([2, 4, 1])
    cpu = _problem(lambda n: (torch.arange(4)[None] < n.cpu()[:, None]).to(n.device), lengths)
    assert cpu is None
    to = _problem(lambda n: (torch.arange(4)[None] < n.to("cpu")[:, None]).to(n.device), lengths)
    assert to is None
    assert _problem(lambda n: n.cpu().sum() + n, lengths) is None  # 0 dims: a CPU scalar


def test_a_tensor_moved_to_the_cpu_that_meets_an_input_or_is_returned_is_found():
    from autograder.sandbox.protocol import MOVED_TO_CPU

    lengths = torch.tensor([2, 4, 1])
    arange = lambda n: torch.arange(4, device=n.device)[None]  # noqa: E731
    returned = _problem(lambda n: (arange(n) < n[:, None]).cpu(), lengths)
    met = _problem(lambda n: arange(n) < n.to("cpu")[:, None], lengths)
    assert str(returned) == str(met) == MOVED_TO_CPU
    both = _problem(lambda n: torch.arange(4)[None] < n.cpu()[:, None], lengths)
    assert "torch.arange" in str(both)  # a factory is named before a move


def test_masked_fill_takes_a_cpu_scalar_value_on_meta():
    """Trial 47: a GPU takes masked_fill(mask, torch.tensor(-inf)); the meta kernel does not."""
    scores = torch.empty(2, 3, 4, device="meta")
    mask = torch.empty(3, 4, dtype=torch.bool, device="meta")
    with DefaultDeviceFactories((scores, mask)):
        out = scores.masked_fill(~mask, torch.tensor(float("-inf")))
        torch.masked_fill(scores, ~mask, value=torch.tensor(float("-inf")))
    assert out.shape == scores.shape and out.device.type == "meta"


MOVED_BACK = {  # trial 47's false fails, each correct on a GPU (it ran them on one)
    "padding_mask": (
        "def padding_mask(lengths, max_len):\n"
        "    return (torch.arange(max_len)[None, :] < lengths.cpu()[:, None]).to(lengths.device)\n"
    ),
    "masked_scores": (
        "def masked_scores(scores, mask):\n"
        "    return scores.masked_fill(~mask, torch.tensor(float('-inf')))\n"
    ),
}


@pytest.mark.parametrize("name", sorted(MOVED_BACK))
def test_the_engine_passes_a_mask_made_on_the_cpu_and_moved_back(name: str):
    from autograder.core.judge import judge_source

    [result] = judge_source(BASE + "\n\nimport torch\n" + MOVED_BACK[name], only=[name])
    assert result.passed, result.message


def test_a_tensor_moved_to_the_cpu_is_a_copy_as_from_a_gpu():
    """In place on what .cpu() gave back leaves the input as it was, and a leaf that requires
    grad may be written that way (a view of it could not)."""
    scores = torch.randn(3, 4, requires_grad=True)
    before = scores.detach().clone()

    def fill(s):
        out = s.cpu()
        out.masked_fill_(torch.ones(3, 4, dtype=torch.bool).tril(), 0.0)
        return out.to(s.device)

    assert _problem(fill, scores) is None  # the mask and the copy are both on the CPU
    assert torch.equal(scores.detach(), before)

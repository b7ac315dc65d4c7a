"""The real-world set (issue 19): code as public projects write it, graded like a learner's.

``tests/realworld/correct/<source>__<exercise>.py`` is a correct implementation from a public
project (nanoGPT, the Annotated Transformer, d2l, Hugging Face, ...), adapted only to the
contract's names, signatures and mask polarity: it must pass every exercise its ``# grade:``
line names. ``tests/realworld/bugs/<source>__<short>.py`` reproduces a bug reported in a public
issue tracker in the contract's terms: it must fail its exercise with the mistake id of its
``# expect:`` line (``unnamed-failure`` where no catalogue id fits yet: it must still be caught
and named, so it stays an xfail until an id exists and the header names it). Each file's header
names its source (and, for a bug, the issue) and what was adapted.

Both are judged as ``tests/test_grader_mutations.py`` judges its wrong files: after
``correct/plain.py``, as a later notebook cell overrides an earlier one, so a file holds only its
own definitions and later exercises may use the plain solution's earlier ones. One sandbox
session per file (``judge_source``), only the file's exercises graded.

Where the grader is wrong today the case is ``xfail(strict=True)`` with the finding as its
reason (``FINDINGS``): whoever fixes the check removes the entry, and the strict xfail fails
until they do.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_grader_mutations import BASE

from autograder.judge import judge_source
from autograder.mistakes import MISTAKES
from autograder.registry import all_exercises

REALWORLD = Path(__file__).parent / "realworld"
CORRECT = sorted((REALWORLD / "correct").glob("*.py"))
BUGS = sorted((REALWORLD / "bugs").glob("*.py"))
UNNAMED = "unnamed-failure"  # no catalogue id fits yet: the bug still must be caught and named

_ASSERT_OK = (
    "COURSE_SPEC 'Argument checks': an AssertionError from an assert is accepted with a note, "
    "never with lost points"
)
FINDINGS = {
    # correct code the grader rejects
    "annotated__MultiHeadAttention": (
        f"[no-value-error] for `assert d_model % h == 0`; {_ASSERT_OK}"
    ),
    "nanogpt__MultiHeadAttention": (
        f"[no-value-error] for `assert n_embd % n_head == 0`; {_ASSERT_OK}"
    ),
    "llmsfromscratch__MultiHeadAttention": (
        f"[no-value-error] for `assert d_out % num_heads == 0`; {_ASSERT_OK}"
    ),
    "nanogpt__LearnedPositionalEmbedding": (
        f"[no-value-error] for `assert t <= block_size` when L > max_len; {_ASSERT_OK}"
    ),
    "nanogpt__FeedForward": (
        "[ffn-dropout-after-output] for dropout on linear2's output (GPT-2/nanoGPT's MLP), a "
        "placement COURSE_SPEC's FeedForward row accepts"
    ),
    "annotated_clones__MultiHeadAttention": (
        "[module-attribute-names] for w_q/w_k/w_v/w_o exposed as properties over the Annotated "
        "Transformer's clones (each is an nn.Linear, as the contract asks): weights are loaded "
        "with load_state_dict(strict=True) keyed by names the module registers as linears.N; "
        "load through the attributes, or COURSE_SPEC must require registered submodules"
    ),
    # bugs the grader misses or does not name
    "executorch__tiled-causal-bottom-right": (
        "missed: a bottom-right aligned causal mask passes tiled_attention, whose causal checks "
        "all have Lq == Lk (COURSE_SPEC: top-left, also when Lq != Lk); needs a check and an id"
    ),
    "howtotrainyourgpt__rope-mixed-convention": (
        "caught but unnamed: split-half rotate_half with repeat_interleave'd (pair) frequencies "
        "matches no apply_rope mutant; rope-half-split's mutant has the halves' frequencies"
    ),
    "jadore__frequency-exponent-i": (
        "caught but unnamed: exponent 2c/d for every column c (sin and cos of a pair get "
        "different frequencies); the frequency-exponent-i mutants give both columns one exponent"
    ),
    "samlynnevans__pe-exponent-doubled": (
        "caught but unnamed: (2*i)/d for sin and (2*(i+1))/d for cos with i stepping by 2, the "
        "same table as jadore's; not one of the frequency-exponent-i mutants"
    ),
    "maxjcohen__pe-base-and-cos-offset": (
        "caught but unnamed: base 1000 and cos exponents from arange(1, d, 2); no id for a wrong "
        "sinusoid base or a cos-column offset"
    ),
    "loftr__pe-div-term-precedence": (
        "caught but unnamed: `-log(10000) / d_model // 2` makes every frequency e^(-2i); no id "
        "for a wrong sinusoid base/scale"
    ),
}


def header(path: Path, key: str) -> str:
    match = re.search(rf"^# {key}: (.+)$", path.read_text(), re.M)
    assert match, f"{path.name} has no '# {key}: ...' line"
    return match.group(1).strip()


def graded(path: Path) -> list[str]:
    return header(path, "grade").split()


def case(path: Path):
    reason = FINDINGS.get(path.stem)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, marks=marks, id=path.stem)


def test_the_set_is_large_and_every_header_names_its_source():
    assert len(CORRECT) >= 25 and len(BUGS) >= 15
    exercises = set(all_exercises())
    for path in CORRECT + BUGS:
        text = path.read_text()
        assert text.startswith("# Source: "), f"{path.name}: the header starts with '# Source:'"
        assert "Adapted to the contract" in text or "Reproduced in the contract" in text, path.name
        assert graded(path) and set(graded(path)) <= exercises, path.name
    for path in BUGS:
        assert "https://github.com/" in path.read_text(), f"{path.name}: the issue's address"
        assert len(graded(path)) == 1, f"{path.name}: a bug file grades one exercise"


def test_every_expected_id_is_a_catalogue_entry_of_its_exercise():
    for path in BUGS:
        expected = header(path, "expect")
        if expected == UNNAMED:
            continue
        assert expected in MISTAKES, f"{path.name}: no catalogue entry {expected!r}"
        assert graded(path)[0] in MISTAKES[expected].exercises, path.name


def test_every_finding_is_a_file_of_the_set():
    assert set(FINDINGS) <= {p.stem for p in CORRECT + BUGS}


@pytest.mark.parametrize("path", [case(p) for p in CORRECT])
def test_real_world_code_passes(path: Path):
    names = graded(path)
    results = judge_source(BASE + "\n\n" + path.read_text(), only=names)
    assert [r.exercise for r in results] == [n for n in all_exercises() if n in names]
    failed = {r.exercise: f"[{r.mistake}] {r.message}" for r in results if not r.passed}
    assert not failed, failed


@pytest.mark.parametrize("path", [case(p) for p in BUGS])
def test_real_world_bug_is_caught_and_named(path: Path):
    [name] = graded(path)
    expected = header(path, "expect")
    [result] = judge_source(BASE + "\n\n" + path.read_text(), only=[name])
    assert not result.passed, f"{path.name} passed {name}"
    if expected == UNNAMED:
        assert result.mistake is not None, f"{path.name}: caught, but unnamed\n{result.message}"
    else:
        assert result.mistake == expected, (
            f"{path.name}: expected {expected}, got {result.mistake}\n{result.message}"
        )

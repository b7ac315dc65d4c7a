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
the plain correct style, as a later notebook cell overrides an earlier one, so a file holds only its
own definitions and later exercises may use the plain solution's earlier ones. One sandbox
session per file (``lesson_files.judge_after_base``), only the file's exercises graded.

Where the grader is wrong today the case is ``xfail(strict=True)`` with the finding as its
reason (``FINDINGS``): whoever fixes the check removes the entry, and the strict xfail fails
until they do.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lesson_files import judge_after_base

from autograder.core.mistakes import MISTAKES
from autograder.core.registry import all_exercises

REALWORLD = Path(__file__).parent / "realworld"
CORRECT = sorted((REALWORLD / "correct").glob("*.py"))
BUGS = sorted((REALWORLD / "bugs").glob("*.py"))
UNNAMED = "unnamed-failure"  # no catalogue id fits yet: the bug still must be caught and named

FINDINGS: dict[str, str] = {
    # correct code the grader rejects, and bugs it misses or does not name
    "megatron__masked_scores": (
        "a gap in COURSE_SPEC, not in the check: Megatron's attention_mask_func fills the scores "
        "it is given in place and returns them; the grader names that [modifies-input] (the "
        "caller's scores overwritten), which COURSE_SPEC's conventions do not state. Once the "
        "spec says that functions leave their input tensors as they were, this file is adapted "
        "(masked_fill out of place) or moved, and the entry removed"
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
    results = judge_after_base(path.read_text(), only=names)
    assert [r.exercise for r in results] == [n for n in all_exercises() if n in names]
    failed = {r.exercise: f"[{r.mistake}] {r.message}" for r in results if not r.passed}
    assert not failed, failed


@pytest.mark.parametrize("path", [case(p) for p in BUGS])
def test_real_world_bug_is_caught_and_named(path: Path):
    [name] = graded(path)
    expected = header(path, "expect")
    [result] = judge_after_base(path.read_text(), only=[name])
    assert not result.passed, f"{path.name} passed {name}"
    if expected == UNNAMED:
        assert result.mistake is not None, f"{path.name}: caught, but unnamed\n{result.message}"
    else:
        assert result.mistake == expected, (
            f"{path.name}: expected {expected}, got {result.mistake}\n{result.message}"
        )

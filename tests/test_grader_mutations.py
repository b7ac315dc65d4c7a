"""The mutation gate: the checks must name every known mistake and pass every correct style.

``tests/lessons/<L>/wrong/<id>[__variant].py`` is a learner-style wrong implementation (its
``# grade: NAME`` line says which exercise it is for) that must fail with exactly mistake ``<id>``.
It is judged after the plain style, as a later notebook cell overrides an earlier one, so it only
holds the buggy definition. Each correct style (every lesson's ``correct/<style>.py``, in lesson
order: einsum, loops, bmm, where vs masked_fill, ...) must pass every exercise it defines; the
plain one defines them all.
``tests/lessons/<L>/builtin/*.py`` call what the exercise forbids. ``tests/lesson_files.py`` finds
them all; ``tests/test_lesson_files.py`` checks where they are.

Everything runs through the real engine (``autograder.core.judge.judge_code``): sandbox, forbidden
calls, time limits and all.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lesson_files import (
    BUILTIN,
    STYLES,
    WRONG,
    expected_id,
    graded_exercise,
    judge_after_base,
    style,
    style_defines,
)

from autograder.core.judge import judge_source
from autograder.core.mistakes import GENERIC_IDS, MISTAKES, catalogue
from autograder.core.registry import all_exercises

CATALOGUE = catalogue()  # every lesson's mistakes, the generic ids excluded


def test_catalogue_has_at_least_40_conceptual_mistakes():
    assert len(CATALOGUE) >= 40
    assert not {m.id for m in CATALOGUE} & GENERIC_IDS


def test_every_catalogue_entry_has_a_wrong_submission():
    covered = {expected_id(p) for p in WRONG}
    missing = sorted(m.id for m in CATALOGUE if m.id not in covered)
    assert not missing, f"no wrong submission for: {missing}"


def test_every_wrong_submission_is_a_catalogue_entry_for_its_exercise():
    for path in WRONG:
        mistake = MISTAKES.get(expected_id(path))
        assert mistake is not None, f"{path.name}: no catalogue entry {expected_id(path)!r}"
        assert graded_exercise(path) in mistake.exercises, (
            f"{path.name}: {mistake.id} does not list {graded_exercise(path)} in its exercises"
        )


def test_catalogue_ids_are_stable_kebab_case_with_title_and_hint():
    for m in MISTAKES.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m.id), m.id
        assert m.title and not m.title.endswith("."), m.id
        assert m.hint.endswith("."), m.id
        assert set(m.exercises) <= set(all_exercises()), m.id


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_wrong_submission_is_named(path: Path):
    name = graded_exercise(path)
    results = judge_after_base(path.read_text(), only=[name])
    assert [r.exercise for r in results] == [name]
    result = results[0]
    assert not result.passed, f"{path.name} passed {name}"
    assert result.mistake == expected_id(path), (
        f"{path.name}: expected {expected_id(path)}, got {result.mistake}\n{result.message}"
    )
    assert len(result.message.splitlines()) <= 4, result.message  # short, not a wall
    assert name in result.message or name.split("_")[0] in result.message


@pytest.mark.parametrize("path", BUILTIN, ids=lambda p: p.stem)
def test_calling_the_builtin_or_the_reference_is_caught(path: Path):
    """Each exercise forbids what it asks to build (the engine's own tests cover the mechanism;
    this checks the exercises' forbid lists)."""
    name = graded_exercise(path)
    [result] = judge_after_base(path.read_text(), only=[name])
    expected = "uses-reference" if path.stem.endswith("__reference") else "uses-builtin"
    assert (result.passed, result.mistake) == (False, expected), result.message


@pytest.mark.parametrize("name", STYLES)
def test_correct_submission_passes_every_exercise(name: str):
    """The plain style is judged on every exercise; another style on the exercises it defines
    (a new exercise needs only its plain slice: ``tests/test_lesson_files.py``)."""
    want = set(all_exercises()) if name == "plain" else style_defines(name) & set(all_exercises())
    results = judge_source(style(name), only=None if name == "plain" else sorted(want))
    failed = {r.exercise: f"[{r.mistake}] {r.message}" for r in results if not r.passed}
    assert not failed, failed
    assert {r.exercise for r in results} == want

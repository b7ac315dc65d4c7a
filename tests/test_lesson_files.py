"""Each lesson's learner-style test files are in its folder, ``tests/lessons/<L>/``, and none is
left out (``tests/lesson_files.py`` says what each holds).

A file in the wrong lesson's folder, a plain slice without one of its lesson's exercises, a
lesson without a plain slice, or a slice of another style defining another lesson's exercise
fails here, with the path it must have. That every
mistake has a wrong file, every wrong file gets its id and every style passes is
``tests/test_grader_mutations.py``'s.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lesson_files import BUILTIN, LESSONS, STYLES, WRONG, defined, graded_exercise, slices

from autograder import contract
from autograder.core import lesson_folders
from autograder.core.registry import all_exercises

LESSON_OF = {e.name: e.lesson for e in contract.CONTRACT}
WITH_EXERCISES = sorted(set(LESSON_OF.values()))
KINDS = ("wrong", "correct", "builtin")
# The exercises every style covered when a new exercise stopped needing a slice of every style:
# a style may lag behind the exercises added since, never lose one it has.
STYLE_COVERAGE_FLOOR = 25


def test_lesson_test_folders_are_named_like_the_grader_lesson_folders():
    folders = {p.name for p in LESSONS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= set(lesson_folders.lessons()), sorted(folders - set(lesson_folders.lessons()))
    assert set(WITH_EXERCISES) <= folders, (
        f"no tests/lessons/ folder: {set(WITH_EXERCISES) - folders}"
    )
    for folder in folders:
        odd = {p.name for p in (LESSONS / folder).iterdir()} - set(KINDS) - {"__pycache__"}
        assert not odd, f"tests/lessons/{folder}/ holds {sorted(odd)}; only {KINDS}"


@pytest.mark.parametrize("path", WRONG + BUILTIN, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_file_is_in_the_folder_of_its_exercises_lesson(path: Path):
    name = graded_exercise(path)
    assert name in LESSON_OF, f"{path}: '# grade: {name}' is not an exercise of the contract"
    want = LESSONS / LESSON_OF[name] / path.parent.name / path.name
    assert path == want, (
        f"move {path.relative_to(LESSONS.parents[1])} to {want.relative_to(LESSONS.parents[1])}"
    )


def test_there_are_several_correct_styles_and_a_plain_one():
    assert "plain" in STYLES and len(STYLES) >= 4, STYLES


@pytest.mark.parametrize("lesson", WITH_EXERCISES)
def test_the_plain_style_has_a_slice_with_exactly_its_lessons_exercises(lesson: str):
    """Every exercise is in the plain style (the base wrong files are judged after); the other
    styles need not have a new one (``test_other_styles_define_only_their_lessons_exercises``)."""
    want = {name for name, of in LESSON_OF.items() if of == lesson}
    path = LESSONS / lesson / "correct" / "plain.py"
    assert path.is_file(), f"the plain style has no slice for {lesson}: {path} is missing"
    exercises = defined(path) & set(LESSON_OF)
    assert exercises == want, (
        f"{path}: defines {sorted(exercises)}, its lesson's exercises are {sorted(want)}"
    )


@pytest.mark.parametrize("style", sorted(set(STYLES) - {"plain"}))
def test_other_styles_define_only_their_lessons_exercises(style: str):
    """A slice of another style defines some of its lesson's exercises, each judged by
    ``tests/test_grader_mutations.py::test_correct_submission_passes_every_exercise``; the style
    keeps every exercise it covers (``STYLE_COVERAGE_FLOOR``)."""
    covered = set()
    for path in slices(style):
        lesson = path.parent.parent.name
        exercises = defined(path) & set(LESSON_OF)
        others = {name for name in exercises if LESSON_OF[name] != lesson}
        assert not others, f"{path}: defines {sorted(others)}, exercises of other lessons"
        covered |= exercises
    assert len(covered) >= STYLE_COVERAGE_FLOOR, (
        f"the {style} style covers {len(covered)} exercises, fewer than the "
        f"{STYLE_COVERAGE_FLOOR} it had: {sorted(set(LESSON_OF) - covered)} are missing"
    )


def test_a_style_is_its_slices_in_lesson_order():
    for style in STYLES:
        lessons = [p.parent.parent.name for p in slices(style)]
        assert lessons == sorted(lessons) and set(lessons) <= set(WITH_EXERCISES), style


def test_every_exercise_that_forbids_something_has_a_builtin_file():
    forbidding = {name for name, gradable in all_exercises().items() if gradable.forbid}
    missing = forbidding - {graded_exercise(p) for p in BUILTIN}
    assert not missing, f"no tests/lessons/<L>/builtin/<name>.py calling what it forbids: {missing}"

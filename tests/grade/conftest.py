"""Fixtures the grading tests share."""

from pathlib import Path

import pytest
from test_gradebook import MASKS, _load_release


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    """A course folder with lesson 04 released by ``nbgrader generate_assignment`` (its release/
    notebook and gradebook), made once per test module."""
    course = tmp_path_factory.mktemp("released") / "course"
    course.mkdir()
    _load_release().generate(course, [MASKS])
    return course

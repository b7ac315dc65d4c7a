"""Fixtures the grading tests share."""

import fcntl
import shutil
from pathlib import Path

import pytest
from lesson_runs import session_folder
from test_gradebook import MASKS, _load_release


def released_course(tmp_path_factory, dest: Path) -> Path:
    """``dest``: a course folder with lesson 04 released by ``nbgrader generate_assignment`` (its
    release/ notebook and gradebook). nbgrader runs once per session (2.5 CPU-s with the
    ``alembic heads`` it starts): the first process that asks generates it under a lock, in the
    session's folder, and every caller gets its own copy."""
    shared = session_folder(tmp_path_factory)
    made = shared / f"released-{MASKS}"
    with open(shared / f"released-{MASKS}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.is_dir():
            making = shared / f"released-{MASKS}.making"
            shutil.rmtree(making, ignore_errors=True)
            making.mkdir()
            _load_release().generate(making, [MASKS])
            making.rename(made)
    shutil.copytree(made, dest)
    return dest


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    """A course folder with lesson 04 released (:func:`released_course`), one per test module."""
    return released_course(tmp_path_factory, tmp_path_factory.mktemp("released") / "course")


@pytest.fixture
def released_copy(tmp_path_factory, tmp_path) -> Path:
    """The test's own course folder with lesson 04 released (:func:`released_course`)."""
    return released_course(tmp_path_factory, tmp_path / "course")

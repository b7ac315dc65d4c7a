"""The warm grader's fingerprint covers every file it reads once and keeps (red team round 7: a
changed translation or lesson notebook kept being served by a warm grader until it timed out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.service import runtime


@pytest.fixture
def course(tmp_path: Path, monkeypatch) -> Path:
    for name, text in {
        "autograder/checks.py": "X = 1\n",
        "course_lib/ref.py": "Y = 2\n",
        "autograder/locale/zh_CN/LC_MESSAGES/autograder.mo": "catalog v1",
        "notebooks/04_softmax_masks/04_softmax_masks.ipynb": "{}",
        "solutions/04_softmax_masks/04_softmax_masks.ipynb": "{}",
        "README.md": "read me",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(runtime, "ROOT", tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "changed",
    [
        "autograder/checks.py",
        "course_lib/ref.py",
        "autograder/locale/zh_CN/LC_MESSAGES/autograder.mo",
        "notebooks/04_softmax_masks/04_softmax_masks.ipynb",
        "solutions/04_softmax_masks/04_softmax_masks.ipynb",
    ],
)
def test_a_changed_file_the_grader_keeps_changes_the_fingerprint(course, changed):
    before = runtime.fingerprint()
    assert runtime.fingerprint() == before, "the same files, the same fingerprint"
    (course / changed).write_text((course / changed).read_text() + " ")
    assert runtime.fingerprint() != before


def test_a_file_the_grader_does_not_read_leaves_it_alone(course):
    before = runtime.fingerprint()
    (course / "README.md").write_text("edited")
    assert runtime.fingerprint() == before

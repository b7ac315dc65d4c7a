"""Fixtures the drill tests share; their helpers are in drill_helpers.py."""

import pytest

from autograder import i18n
from autograder.drill import history


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A temporary history directory, a temporary working directory for drill files, and
    English unless a test chooses another language."""
    directory = tmp_path / "home"
    monkeypatch.setenv(history.ENV, str(directory))
    monkeypatch.setenv(i18n.ENV, i18n.ENGLISH)
    monkeypatch.chdir(tmp_path)
    return directory

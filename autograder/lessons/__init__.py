"""One folder per lesson, named exactly like the lesson's folder in ``solutions/``.

A lesson folder holds what the grader knows about that lesson: ``questions.py`` (its conceptual
questions, a list ``QUESTIONS`` of :class:`autograder.questions.Question`) and, as the
restructuring goes on, its checks and its known mistakes. Folder names start with a digit, so they
are imported by name through :func:`load`, never with an ``import`` statement.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def lessons() -> list[str]:
    """The lesson folders, in course order (``"00_setup"``, ``"01_projections"``, ...)."""
    return sorted(p.name for p in HERE.iterdir() if p.is_dir() and p.name[:2].isdigit())


def load(lesson: str, part: str) -> ModuleType | None:
    """``autograder.lessons.<lesson>.<part>``, or None when that lesson has no such file."""
    if not (HERE / lesson / f"{part}.py").is_file():
        return None
    return importlib.import_module(f"{__name__}.{lesson}.{part}")

"""The lesson folders of ``autograder/lessons/`` (described there): which there are, and loading
one's ``checks``, ``mistakes`` or ``questions`` by name."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parents[1] / "lessons"


def lessons() -> list[str]:
    """The lesson folders, in course order (``"00_setup"``, ``"01_projections"``, ...)."""
    return sorted(p.name for p in HERE.iterdir() if p.is_dir() and p.name[:2].isdigit())


def load(lesson: str, part: str) -> ModuleType | None:
    """``autograder.lessons.<lesson>.<part>``, or None when that lesson has no such file."""
    if not (HERE / lesson / f"{part}.py").is_file():
        return None
    return importlib.import_module(f"autograder.lessons.{lesson}.{part}")


class Gathered(Mapping):
    """A read-only mapping built from the lesson folders on first use (``build()``, cached by
    the caller), so that importing it neither imports the lessons nor depends on them."""

    def __init__(self, build: Callable[[], Mapping[str, Any]]):
        self._build = build

    def __getitem__(self, key: str) -> Any:
        return self._build()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._build())

    def __len__(self) -> int:
        return len(self._build())

"""Where the course teaches each named mistake: the lesson notebook and the section citing it.

Each lesson's notebook cites the mistakes it teaches as ``[mistake-id]``, mostly in its "Common
mistakes" section (``tests/test_contract.py`` checks that every cited id exists). Feedback and the
class report point a learner, or the instructor, to that section.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.core.mistakes import by_lesson
from autograder.grade import COURSE

CITATION = re.compile(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]")  # as tests/test_contract.py reads
COMMON = "Common mistakes"


@dataclass(frozen=True)
class Section:
    lesson: str  # the lesson folder, "04_softmax_masks"
    heading: str  # the heading above the citation, without its '#' marks

    @property
    def notebook(self) -> str:
        """The learner's notebook file (its name only)."""
        return f"{self.lesson}.ipynb"

    def __str__(self) -> str:
        return f"{self.notebook}, section “{self.heading}”"


def _notebooks() -> list[Path]:
    """The learners' notebooks (``notebooks/``), or the sources where nothing is released."""
    for folder in ("notebooks", "solutions"):
        found = sorted((COURSE / folder).glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
        found = [p for p in found if p.stem == p.parent.name]
        if found:
            return found
    return []


@functools.cache
def citations() -> dict[str, tuple[Section, ...]]:
    """Every section citing each mistake id, in course order."""
    from autograder.core.extract import import_nbformat

    nbformat = import_nbformat()

    found: dict[str, list[Section]] = {}
    for path in _notebooks():
        heading = path.stem
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for line in cell.source.splitlines():
                if re.match(r"#{1,6}\s", line):
                    heading = line.lstrip("#").strip()
                for mistake in CITATION.findall(line):
                    section = Section(path.parent.name, heading)
                    if section not in found.setdefault(mistake, []):
                        found[mistake].append(section)
    return {m: tuple(s) for m, s in found.items()}


@functools.cache
def _owner() -> dict[str, str]:
    return {m.id: lesson for lesson, ms in by_lesson().items() for m in ms}


def section(mistake: str | None, assignment: str | None = None) -> Section | None:
    """The section to re-read for ``mistake``: in the assignment's own lesson if it cites it
    (``assignment``: its folder name or lesson number), else in the lesson that first diagnoses
    it, else the first lesson citing it; a "Common mistakes" section before any other. None when
    no notebook cites it."""
    if mistake is None:
        return None
    number = (assignment or "")[:2]
    owner = _owner().get(mistake, "")

    def rank(s: Section) -> tuple[bool, bool, bool]:
        return (s.lesson[:2] != number, s.lesson != owner, COMMON not in s.heading)

    found = citations().get(mistake, ())
    return min(found, key=rank) if found else None

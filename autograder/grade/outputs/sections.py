"""Where the course teaches each named mistake: the lesson notebook and the section citing it.

Each lesson's notebook cites the mistakes it teaches as ``[mistake-id]``, mostly in its "Common
mistakes" section (``tests/test_contract.py`` checks that every cited id exists). Feedback and the
class report point a learner, or the instructor, to that section: of the edition in the reader's
language (``zh-CN/notebooks``' “常见错误”, a trial's Chinese report pointed to “Common mistakes”).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from autograder import i18n
from autograder.core.mistakes import by_lesson
from autograder.grade import COURSE

CITATION = re.compile(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]")  # as tests/test_contract.py reads
COMMON = {i18n.ENGLISH: "Common mistakes", i18n.CHINESE: "常见错误"}  # the section's heading


@dataclass(frozen=True)
class Section:
    lesson: str  # the lesson folder, "04_softmax_masks"
    heading: str  # the heading above the citation, without its '#' marks

    @property
    def notebook(self) -> str:
        """The learner's notebook file (its name only)."""
        return f"{self.lesson}.ipynb"

    def __str__(self) -> str:
        """Where to look, in the reader's language: '04_softmax_masks.ipynb, section “...”'."""
        # TRANSLATORS: a section of a lesson notebook, the one to re-read
        said = i18n._("{notebook}, section “{heading}”")
        return said.format(notebook=self.notebook, heading=self.heading)


def _notebooks(language: str) -> list[Path]:
    """The learners' notebooks of ``language``'s edition (``notebooks/``, ``zh-CN/notebooks/``),
    or its sources where nothing is released; English where the edition has neither."""
    root = COURSE / i18n.ZH_FOLDER if language == i18n.CHINESE else COURSE
    for folder in ("notebooks", "solutions"):
        found = sorted((root / folder).glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
        found = [p for p in found if p.stem == p.parent.name]
        if found:
            return found
    return _notebooks(i18n.ENGLISH) if language != i18n.ENGLISH else []


def citations() -> dict[str, tuple[Section, ...]]:
    """Every section citing each mistake id, in course order, in the reader's language."""
    return _citations(i18n.language())


@functools.cache
def _citations(language: str) -> dict[str, tuple[Section, ...]]:
    from autograder.core.extract import import_nbformat

    nbformat = import_nbformat()

    found: dict[str, list[Section]] = {}
    for path in _notebooks(language):
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

    common = COMMON.get(i18n.language(), COMMON[i18n.ENGLISH])

    def rank(s: Section) -> tuple[bool, bool, bool]:
        return (s.lesson[:2] != number, s.lesson != owner, common not in s.heading)

    found = citations().get(mistake, ())
    return min(found, key=rank) if found else None

"""The catalogue of known mistakes: what learners really get wrong, with stable ids.

A check that recognises a mistake raises ``CheckFailure(message, mistake=id)``; the report shows
the entry's title and hint next to the check's own message. Ids are part of the grader's output
(``--json``) and of the notebooks' "Common mistakes" sections: never rename one, only add.

The engine's own ids (``GENERIC``) are here; every other entry lives in the lesson folder of the
earliest exercise it is diagnosed in, ``autograder/lessons/<lesson>/mistakes.py`` (a tuple
``MISTAKES``), found by name: a new lesson's mistakes need no other registration. Each such entry
is cited as ``[id]`` in its lesson's notebook and has a learner-style wrong submission in
``tests/lessons/<lesson>/wrong/`` (the lesson of the exercise it grades) that must be diagnosed
as exactly that id (``tests/test_grader_mutations.py``, ``tests/test_lesson_files.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from autograder.core import lesson_folders
from autograder.i18n import _


@dataclass(frozen=True)
class Mistake:
    id: str  # stable kebab-case id
    exercises: tuple[str, ...]  # where it is diagnosed; () for the engine's generic ids
    title: str  # what it looks like, one short sentence without a final period
    hint: str  # how to fix it, one or two sentences


# The engine's own ids (judge and sandbox), not tied to one exercise.
GENERIC = (
    Mistake(
        "not-defined",
        (),
        "The exercise is not defined",
        "Define a top-level function or class with exactly the name the exercise asks for.",
    ),
    Mistake(
        "uses-builtin",
        (),
        "Calls the built-in it is asked to build",
        "The point of the exercise is to write it yourself; use plain tensor operations.",
    ),
    Mistake(
        "uses-reference",
        (),
        "Calls the course's reference solution",
        "Write it yourself: course_lib's version of this exercise is off limits while graded.",
    ),
    Mistake(
        "timeout",
        (),
        "Takes too long",
        "Look for a loop that never ends, one that runs far more often than needed, or a wait "
        "(time.sleep, input()): the tests call your code more than once.",
    ),
    Mistake(
        "out-of-memory",
        (),
        "Uses far too much memory",
        "Something allocates a tensor much larger than the inputs; check your shapes.",
    ),
    Mistake(
        "crashed",
        (),
        "The Python process running your code crashed",
        "Often a recursion without end or a native crash; run the cell again to see the error.",
    ),
    Mistake(
        "not-judged",
        (),
        "The grader could not judge it: its sandbox did not start",
        "Not your code: check it again. An instructor grades it again with grade --student.",
    ),
    Mistake(
        "wrong-dtype",
        (),
        "Returns a different dtype than the contract asks for",
        "A function given a tensor keeps its dtype: no .float() or .double() on the way, and "
        "new tensors made with dtype=x.dtype (torch.tensor and torch.arange pick float32 or "
        "int64 on their own). One given only sizes returns float32: compute in float64 if you "
        "like, then .float().",
    ),
    Mistake(
        "modifies-input",
        (),
        "Changes the caller's input tensors in place",
        "Use the out-of-place versions (k.transpose(-2, -1), scores.masked_fill(...), "
        "x - m, q / c), and write slices (out[..., 0::2] = ...) into a new tensor "
        "(torch.empty_like(x), or x.clone()), never into x: the caller still needs its tensors "
        "as they were.",
    ),
    Mistake(
        "tampering",
        (),
        "Tries to change the grader or its results",
        "Your code may only compute the answer; it must not touch the grader.",
    ),
)


@cache
def _by_lesson() -> dict[str, tuple[Mistake, ...]]:
    found = {}
    for lesson in lesson_folders.lessons():
        module = lesson_folders.load(lesson, "mistakes")
        if module is not None:
            found[lesson] = tuple(module.MISTAKES)
    return found


@cache
def _catalogue() -> dict[str, Mistake]:
    entries = GENERIC + tuple(m for ms in _by_lesson().values() for m in ms)
    catalogue = {m.id: m for m in entries}
    if len(catalogue) != len(entries):
        seen = [m.id for m in entries]
        twice = sorted({i for i in seen if seen.count(i) > 1})
        raise ValueError(f"mistake ids defined twice: {twice}")
    return catalogue


MISTAKES: Mapping[str, Mistake] = lesson_folders.Gathered(_catalogue)
GENERIC_IDS = frozenset(m.id for m in GENERIC)


def by_lesson() -> dict[str, tuple[Mistake, ...]]:
    """The lessons' own mistakes (not the generic ones): ``{lesson folder: (Mistake, ...)}``."""
    return dict(_by_lesson())


def catalogue() -> tuple[Mistake, ...]:
    """Every lesson's mistakes, in course order (the generic ids excluded)."""
    return tuple(m for ms in _by_lesson().values() for m in ms)


def get(mistake_id: str) -> Mistake:
    """The catalogue entry ``mistake_id`` (KeyError names the unknown id)."""
    try:
        return MISTAKES[mistake_id]
    except KeyError:
        raise KeyError(f"unknown mistake id {mistake_id!r}") from None


def looks_like(mistake_id: str | None) -> str | None:
    """'Looks like: <title> [id]. <hint>' for an id of the catalogue, None for any other: the one
    line every output (the report, the feedback pages, the exports) names a mistake with, in the
    grader's language (``autograder/i18n.py``)."""
    entry = MISTAKES.get(mistake_id) if mistake_id is not None else None
    if entry is None:
        return None
    return _("Looks like: {title} [{id}]. {hint}").format(
        title=_(entry.title), id=mistake_id, hint=_(entry.hint)
    )

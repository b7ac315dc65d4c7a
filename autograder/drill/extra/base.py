"""The shape of a drill beyond the course's exercises, shared by its definitions."""

from __future__ import annotations

import pkgutil
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NewDrill:
    name: str
    title: str
    exercises: tuple[str, ...]  # the names the candidate defines (course names: course checks)
    difficulty: int
    minutes: int
    statement: str
    interface: tuple[str, ...]  # what the checks rely on: in the blank file at both levels
    pitfalls: tuple[str, ...]  # the guided level only (the bare file is the interview setting)
    stubs: str  # the code the blank file ends with (broken code for "find the bug")
    hints: tuple[str, ...]
    explanation: str
    answer: tuple = ()  # the model answer's objects (references); () = course_lib's
    checks: dict = field(default_factory=dict)  # name -> (check, forbid); {} = the course's
    bug: bool = False
    course_mistakes: tuple[str, ...] = ()  # the course's ids its checks also name
    probe: str = (
        ""  # grader code run after the candidate's, in the sandbox: watches, changes nothing
    )

    @property
    def target_seconds(self) -> float:
        return 60.0 * self.minutes

    @property
    def course_graded(self) -> bool:
        return not self.checks


def _forbid(*names: str) -> tuple[str, ...]:
    """The names that exist in this torch (a newer function is not forbidden where it is absent)."""
    kept = []
    for n in names:
        if n.startswith("aten."):
            kept.append(n)
            continue
        try:
            pkgutil.resolve_name(n)
        except (ImportError, AttributeError, ValueError):
            continue
        kept.append(n)
    return tuple(kept)


def _stub_class(name: str, init: str, forward: str) -> str:
    return (
        f"class {name}(nn.Module):\n    def __init__{init}:\n        super().__init__()\n"
        f"        raise NotImplementedError\n\n    def forward{forward}:\n"
        "        raise NotImplementedError\n"
    )


def _stub_def(name: str, params: str) -> str:
    return f"def {name}{params}:\n    raise NotImplementedError\n"

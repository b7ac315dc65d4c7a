"""The shape of a drill beyond the course's exercises, shared by its definitions.

A drill names its checks, its probe and its model answer (``"checks_norms:check_rmsnorm"``: a
module of this package and a name in it), and they are looked up when a file is graded or the
answer shown (:func:`resolve`): listing the drills (``drill list``, ``drill --help``) imports
neither the checks, the kit nor torch.
"""

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
    answer: tuple = ()  # the model answer's "references:name"s; () = course_lib's
    # name -> ("module:check", what it forbids: names, or "package.module:NAME" of a list; a
    # name this torch lacks is not forbidden); {}: the course's checks
    checks: dict = field(default_factory=dict)
    bug: bool = False
    course_mistakes: tuple[str, ...] = ()  # the course's ids its checks also name
    # "module:NAME" of grader code run after the candidate's, in the sandbox: watches, changes
    # nothing
    probe: str = ""

    @property
    def target_seconds(self) -> float:
        return 60.0 * self.minutes

    @property
    def course_graded(self) -> bool:
        return not self.checks


# The kit's forbid list for writing attention, looked up when grading (as the checks are).
ATTENTION_FORBID = "autograder.kit.exercise:ATTENTION_FORBID"


def resolve(name: str):
    """What a drill names: ``"module:name"`` in this package, or a full ``"package.module:name"``
    of the grader."""
    package = "" if name.startswith("autograder.") else "autograder.drill.extra."
    return pkgutil.resolve_name(package + name)


def _stub_class(name: str, init: str, forward: str) -> str:
    return (
        f"class {name}(nn.Module):\n    def __init__{init}:\n        super().__init__()\n"
        f"        raise NotImplementedError\n\n    def forward{forward}:\n"
        "        raise NotImplementedError\n"
    )


def _stub_def(name: str, params: str) -> str:
    return f"def {name}{params}:\n    raise NotImplementedError\n"

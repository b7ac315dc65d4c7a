"""The blank file and the model answer of a drill beyond the course's exercises."""

from __future__ import annotations

import inspect

from autograder.drill.extra.base import NewDrill, resolve
from autograder.i18n import _

IMPORTS = (
    "import math",
    "",
    "import torch",
    "import torch.nn.functional as F  # noqa: F401",
    "from torch import nn  # noqa: F401",
    "",
)


def blank(drill: NewDrill, comment, header: list[str], bare: bool) -> str:
    """The blank file: ``header`` (the drill's name, title, level), the statement, the interface,
    the pitfalls (guided only), then the stubs or, for "find the bug", the broken code."""
    lines = list(header)
    lines += [comment(_(drill.statement)), "#"]
    lines.append(
        "# "
        + (_("The code below has bugs: fix it.") if drill.bug else _("Write, from a blank page:"))
    )
    lines += [comment(_(text), indent="#   - ") for text in drill.interface]
    if drill.pitfalls and not bare:
        lines += ["#", "# " + _("Watch out for:")]
        lines += [comment(_(text), indent="#   - ") for text in drill.pitfalls]
    return "\n".join(lines)


def model_answer(drill: NewDrill) -> str:
    """The reference's source (its helpers first), each under its qualified name."""
    objects = [resolve(name) for name in drill.answer]
    parts = [f"# {o.__module__}:{o.__qualname__}\n{inspect.getsource(o)}" for o in objects]
    return "\n\n".join(parts)

"""The files of a drill: the blank file ``start`` writes, and the model answer ``reveal`` shows.

The blank file carries the contract's signatures (:mod:`autograder.contract`), what each
exercise must do (its contract row's ``spec``) and the conventions the checks rely on. The model
answer is the course's reference, read from ``course_lib`` with ``inspect.getsource`` (with the
course functions it calls), never a copy.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

from autograder import contract
from autograder.core import syntax
from autograder.drill.catalogue import Drill, conventions, title
from autograder.i18n import _, cells, fill

HEADER = "# drill: "  # the first line of a drill file names its drill


def _comment(text: str, width: int = 92, indent: str = "# ") -> str:
    hang = "#" + " " * (len(indent) - 1 + (0 if indent.endswith("- ") else 2))
    if cells(text) != len(text):  # Chinese: broken between characters too (i18n.fill)
        lines = fill(text, width - len(hang)).splitlines()
        return "\n".join([indent + lines[0], *(hang + line for line in lines[1:])])
    return textwrap.fill(
        text, width, initial_indent=indent, subsequent_indent=hang, break_on_hyphens=False
    )


def _stub(ex: contract.Exercise) -> str:
    if ex.kind == "function":
        return f"def {ex.name}{ex.signature}:\n    raise NotImplementedError\n"
    init = ex.signature.replace("(", "(self, ", 1) if ex.signature != "()" else "(self)"
    method = ex.method.replace("(", "(self, ", 1) if ex.method_params else f"{ex.method_name}(self)"
    module = ex.kind == "module"
    return (
        f"class {ex.name}{'(nn.Module)' if module else ''}:\n    def __init__{init}:\n"
        + ("        super().__init__()\n" if module else "        pass\n")
        + "        raise NotImplementedError\n\n"
        + f"    def {method}:\n        raise NotImplementedError\n"
    )


def blank(drill: Drill, filename: str = "FILE", bare: bool = False, command=None) -> str:
    """The text of a drill's blank file: guided (the contract's text with its pitfalls) or
    ``bare`` (the interface only, :mod:`levels`). ``command(*words)`` spells the trainer's
    commands (:func:`commands.command`)."""
    from autograder.drill import levels
    from autograder.drill.commands import command as default_command
    from autograder.drill.extra import files as extra_files

    command = command or default_command
    level = (
        _("bare, the interview setting: the interface only; the pitfalls are yours to know")
        if bare
        else _("guided: the interface and its pitfalls (`start --bare` leaves the pitfalls out)")
    )
    lines = [
        f"{HEADER}{drill.name}",
        "# " + _("{title}: target {minutes} min").format(title=title(drill), minutes=drill.minutes),
        "# " + _("Level: {level}").format(level=level),
        "#",
    ]
    hints = command("hint", drill.name)
    tail = [
        "#",
        "# " + _("Check:  {command}").format(command=command("check", filename)),
        "# "
        + _("Hints:  {command}   (then hint {name} 2, 3...)").format(
            command=hints, name=drill.name
        ),
        "",
        *extra_files.IMPORTS,
    ]
    if hasattr(drill, "stubs"):  # a drill beyond the course's exercises
        head = extra_files.blank(drill, _comment, lines, bare)
        return head + "\n" + "\n".join(tail) + "\n\n" + drill.stubs
    spec = levels.bare if bare else (lambda text: text)
    if drill.statement:
        statement = _(drill.statement)
        statement = levels.first_sentence(levels.bare(statement)) if bare else statement
        lines += [_comment(statement), "#"]
    lines.append("# " + _("Write, from a blank page (no notebook, no course_lib):"))
    for name in drill.exercises:
        ex = contract.BY_NAME[name]
        what = spec(_(ex.spec))
        lines.append(_comment(f"{name}{ex.signature}: {what}", indent="#   "))
    rules = conventions(drill.exercises)
    rules = levels.conventions(rules) if bare else rules
    lines += ["#", "# " + _("Conventions the checks rely on:")]
    lines += [_comment(_(c), indent="#   - ") for c in rules]
    stubs = [_stub(contract.BY_NAME[n]) for n in drill.exercises]
    return "\n".join(lines + tail) + "\n\n" + "\n\n".join(stubs)


def drill_of(text: str) -> str | None:
    """The drill a file names on its first line (``# drill: NAME``), or None."""
    first = text.lstrip().splitlines()[:1]
    if first and first[0].startswith(HEADER):
        return first[0][len(HEADER) :].strip()
    return None


def _course_objects(obj, seen: dict) -> None:
    """``obj`` and, after it, the course_lib functions and classes its source refers to."""
    key = f"{obj.__module__}:{obj.__qualname__}"
    if key in seen:
        return
    source = inspect.getsource(obj)
    seen[key] = source
    module = importlib.import_module(obj.__module__)
    tree = syntax.parse(textwrap.dedent(source))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for name in sorted(names):
        found = getattr(module, name, None)
        if (
            (inspect.isfunction(found) or inspect.isclass(found))
            and getattr(found, "__module__", "").startswith("course_lib")
            and found is not obj
        ):
            _course_objects(found, seen)


def model_answer(drill: Drill) -> str:
    """The reference source of the drill's exercises, with the course functions they call."""
    if getattr(drill, "answer", ()):  # a drill beyond the course's exercises: its own reference
        from autograder.drill.extra import files as extra_files

        return extra_files.model_answer(drill)
    seen: dict[str, str] = {}
    for name in drill.exercises:
        module, _colon, attr = contract.BY_NAME[name].reference.partition(":")
        _course_objects(getattr(importlib.import_module(module), attr), seen)
    parts = [f"# {key}\n{source}" for key, source in seen.items()]
    return "\n\n".join(parts)

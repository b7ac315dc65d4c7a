"""Whether a submission's code plots, for its sandbox's server to load matplotlib before it forks
the submission's learner process (``protocol.PLOTS``, ``inside/worker.load_plots``), once: every
later fork finds it loaded. Most graded code never plots, and a server that loaded it at its start
cost every sandbox 0.4 CPU-s and every fork 24 MiB more of pages to copy.

Code plots if it names matplotlib or one of the sandbox's ``course_lib`` modules whose import
loads it (``viz_attention``...: found in their sources, not listed here). The name anywhere in the
code is enough (an import in any form, or a comment: loading it for nothing costs the server
0.4 s once); code that loads matplotlib otherwise loads it in its own learner process, slower and
as correct.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable

from autograder.core.syntax import parse_course
from autograder.sandbox.host.bwrap import SANDBOX_FILES

PACKAGE = "course_lib/"


def _module_level_imports(tree: ast.Module) -> set[str]:
    """The modules a module imports when it is imported (not those its functions import)."""
    found: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)  # the body is for type checkers only
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        todo.extend(ast.iter_child_nodes(node))
    return found


def _plots(name: str, plotting: set[str]) -> bool:
    """Whether importing ``name`` (a module's dotted name) loads matplotlib, given the course's
    modules known to load it."""
    parts = name.split(".")
    return parts[0] == "matplotlib" or (parts[0] == "course_lib" and parts[-1] in plotting)


@functools.cache
def plotting_modules() -> frozenset[str]:
    """The names of the sandbox's ``course_lib`` modules whose import loads matplotlib, through
    the course's own modules or not."""
    imports = {
        dest.removeprefix(PACKAGE).removesuffix(".py"): _module_level_imports(
            parse_course(source.read_text(encoding="utf-8"), str(source))
        )
        for dest, source in SANDBOX_FILES.items()
        if dest.startswith(PACKAGE)
    }
    plotting: set[str] = set()
    while True:
        more = {m for m, names in imports.items() if any(_plots(n, plotting) for n in names)}
        if more <= plotting:
            return frozenset(plotting)
        plotting |= more


@functools.cache
def _names() -> re.Pattern:
    names = "|".join(sorted({"matplotlib", *plotting_modules()}))
    return re.compile(rf"\b(?:{names})\b")


def needs_plots(sources: Iterable[str]) -> bool:
    """Whether code made of ``sources`` names matplotlib or a course module that loads it."""
    return any(_names().search(source) for source in sources)

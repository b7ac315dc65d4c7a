"""Turn a learner's file into the code the sandbox runs.

The grader judges *definitions*, so from every code cell (or the whole ``.py`` file) it keeps the
top-level statements that define things — imports, ``def``, ``class`` and assignments — and drops
the rest (calls to ``check``, plots, training loops, ``if __name__ == "__main__":``). That keeps
grading fast and makes it robust to cells that were moved, duplicated, deleted or stripped of their
nbgrader metadata: cells are taken in notebook order, later definitions win, as in a kernel. A cell
that does not parse is reported and skipped; the others are still graded.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

KEPT = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)


class ExtractError(Exception):
    """The file cannot be read as a learner submission (the CLI exits 2 with this message)."""


@dataclass(frozen=True)
class Cell:
    label: str  # how the learner finds it: "cell 7" or the file name
    source: str  # the kept statements, at their original line numbers (others blanked)


@dataclass
class LearnerCode:
    file: str
    cells: list[Cell]
    defined: set[str]  # top-level names the kept statements define (what could be an exercise)
    problems: list[str] = field(default_factory=list)  # cells that could not be parsed

    def names(self, among: set[str] | dict) -> list[str]:
        """The exercise names (of ``among``) this code defines, in contract order."""
        return [name for name in among if name in self.defined]


def _strip_magics(source: str) -> str | None:
    """IPython magics and shell escapes are not Python; a ``%%`` cell magic drops the whole cell."""
    if source.lstrip().startswith("%%"):
        return None
    lines = source.splitlines()
    return "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)


def _bound_names(node: ast.stmt) -> set[str]:
    """Names a kept statement defines: ``def f``, ``class C``, ``f = ...``.

    Imports don't count: a lesson that imports the reference ``QKVProjection`` for a demo has
    not submitted it (and ``check(name)`` or ``--only name`` still judge an imported name).
    """
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return set()
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _is_grader_import(node: ast.stmt) -> bool:
    """``from autograder... import check``: the grader itself is not part of the submission."""
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "autograder"
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] == "autograder" for a in node.names)
    return False


def _keep_definitions(source: str, label: str, code: LearnerCode) -> None:
    source = _strip_magics(source)
    if not source or not source.strip():
        return
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        code.problems.append(f"{label} has a syntax error on line {e.lineno}: {e.msg}; skipped it")
        return
    lines = source.splitlines()
    keep = [False] * len(lines)
    for node in tree.body:
        if isinstance(node, KEPT) and not _is_grader_import(node):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for i in range(start - 1, node.end_lineno):
                keep[i] = True
            code.defined.update(_bound_names(node))
    if any(keep):
        kept = "\n".join(ln if k else "" for ln, k in zip(lines, keep, strict=True))
        code.cells.append(Cell(label, kept))


def from_sources(file: str, sources: list[tuple[str, str]]) -> LearnerCode:
    """Learner code from ``(label, source)`` pairs in execution order."""
    code = LearnerCode(file=file, cells=[], defined=set())
    for label, source in sources:
        _keep_definitions(source, label, code)
    return code


def from_file(path: str | Path) -> LearnerCode:
    """Read a ``.py`` file or an ``.ipynb`` notebook; never modifies it."""
    path = Path(path)
    if not path.is_file():
        raise ExtractError(f"{path}: no such file. Give the path of a .py file or .ipynb notebook.")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ExtractError(f"{path}: cannot read it as UTF-8 text ({e}).") from e
    if not text.strip():
        raise ExtractError(f"{path}: the file is empty. Save your work and try again.")
    if path.suffix == ".ipynb":
        import nbformat  # only for notebooks: it takes longer to import than a .py takes to grade

        try:
            nb = nbformat.reads(text, as_version=4)
        except (json.JSONDecodeError, nbformat.reader.NotJSONError) as e:
            raise ExtractError(
                f"{path}: not a notebook (not valid JSON: {e}). If you edited it by hand, "
                "re-open it in Jupyter and save it, or restore it from a checkpoint."
            ) from e
        except Exception as e:  # nbformat's own validation errors, unknown versions
            raise ExtractError(f"{path}: not a readable notebook ({e}).") from e
        sources = [
            (f"cell {i}", cell.source)
            for i, cell in enumerate(nb.cells, start=1)
            if cell.cell_type == "code"
        ]
        return from_sources(str(path), sources)
    if path.suffix == ".py":
        return from_sources(str(path), [(path.name, text)])
    raise ExtractError(f"{path}: expected a .py file or an .ipynb notebook, got '{path.suffix}'.")

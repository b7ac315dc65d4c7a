"""Turn a learner's file into the code the sandbox runs.

The grader judges *definitions*. A ``.py`` file is a module: it runs as Python imports it (every
top-level statement but ``if __name__ == "__main__":`` and ``check(...)`` calls). From every code
cell of a notebook it keeps the top-level statements that define things — imports, ``def``,
``class``, assignments, and an ``if``/``try``/``for``/``with`` block or augmented assignment that
binds or mutates a name the functions and classes read (or, transitively, such a kept block
reads; a call on an imported module such as ``torch.manual_seed(0)`` mutates no name of the
learner's) — and drops the rest (calls to ``check``, plots, ``with needs(...)`` demos, training
loops). That keeps
grading fast and makes it robust to cells that were moved, duplicated, deleted or stripped of their
nbgrader metadata: cells are taken in notebook order, later definitions win, as in a kernel. A cell
that does not parse is reported and skipped; the others are still graded.
"""

from __future__ import annotations

import ast
import errno
import json
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autograder import i18n
from autograder.core import names, syntax
from autograder.i18n import _, ngettext

KEPT = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)


# A course notebook is a few hundred kilobytes, with plots a few megabytes; its code is tens of
# kilobytes. Anything far bigger is refused before it is parsed, since parsing costs the judge time
# and memory (an 18 MB file of 3 million statements took 49 s and 7 GB).
MAX_FILE_BYTES = 32 * 2**20  # a whole .ipynb, outputs included
MAX_CODE_BYTES = 2 * 2**20  # the code the grader parses: a .py file, or a notebook's code cells


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
    order: list[str] = field(default_factory=list)  # ``defined``, in the order first defined
    callables: set[str] = field(default_factory=set)  # the names ``def`` and ``class`` define
    unread_sources: list[str] = field(default_factory=list)  # the source of each of ``problems``

    def unread_definition(self, name: str) -> str | None:
        """The problem of the cell not read that defines ``name`` (``def name``, ``class name``,
        ``name = ...`` at its top level), as far as a look at its lines tells: None if none."""
        named = re.escape(name)
        at_top = re.compile(
            rf"^(?:(?:async\s+)?def\s+|class\s+){named}\b|^{named}\s*(?::.*)?=", re.M
        )
        skipped = zip(self.problems, self.unread_sources, strict=True)
        return next((problem for problem, source in skipped if at_top.search(source)), None)

    def names(self, among: set[str] | dict) -> list[str]:
        """The exercise names (of ``among``) this code defines, in contract order."""
        return [name for name in among if name in self.defined]


# Where Python ends a line (str.splitlines also ends one at \x0b, \x0c, \x1c-\x1e, \x85, \u2028 and
# \u2029: one in a string literal cut it in two and the whole cell was dropped; red team round 27).
LINE_END = re.compile(r"\r\n|\r|\n")
# A line magic (``%name``) or a shell escape (``!cmd``); not ``!=`` or ``% x`` beginning a line
# inside brackets, as black writes a long comparison or modulo (the line was blanked: a syntax
# error, and the cell was dropped; red team round 28's note).
_MAGIC = re.compile(r"[ \t]*(%[%\w]|!(?!=))")


def _strip_magics(source: str) -> str | None:
    """IPython magics and shell escapes are not Python; a ``%%`` cell magic drops the whole cell."""
    if source.lstrip().startswith("%%"):
        return None
    lines = LINE_END.split(source)
    return "\n".join("" if _MAGIC.match(ln) else ln for ln in lines)


QUOTED = 40  # characters of a skipped cell's first line that its problem quotes


def _where(label: str, source: str) -> str:
    """A notebook cell as a problem names it: its label and its first line, quoted, because
    JupyterLab shows no cell numbers ("cell 16" counts markdown cells too: an instructor's trial);
    a file (its name for a label) is found by its line numbers alone."""
    first = next((line.strip() for line in LINE_END.split(source) if line.strip()), "")
    if not label.startswith("cell ") or not first:
        return i18n.cell(label)
    from autograder.sandbox.protocol import one_line  # learner text: no control characters

    quoted = one_line(first[:QUOTED] + ("…" if len(first) > QUOTED else ""))
    return f'{i18n.cell(label)} ("{quoted}")'


def _parsed(sources: list[tuple[str, str]]) -> list[tuple[str, str, ast.Module | None, str | None]]:
    """Each cell's label, source without its magics, tree (None: nothing to read) and why it was
    skipped (None: it was not). Each cell is parsed once, for the name analysis and for what it
    keeps; the long ones are read first by one child process (:func:`syntax.parse_all`)."""
    cells = []
    for label, source in sources:
        source = _strip_magics(source) or ""
        skipped = None
        if "\0" in source:  # Python refuses the whole file (3.11: ValueError, without a line)
            line = source[: source.index("\0")].count("\n") + 1
            skipped = _("{label} has a null byte on line {line}, which Python cannot read")
            skipped = skipped.format(label=_where(label, source), line=line)
        cells.append([label, source, None, skipped])
    todo = [cell for cell in cells if cell[3] is None and cell[1].strip()]
    for cell, tree in zip(todo, syntax.parse_all([cell[1] for cell in todo]), strict=True):
        if not isinstance(tree, BaseException):
            cell[2] = tree
            continue
        label = _where(cell[0], cell[1])  # skipped: named as the learner finds it
        if isinstance(tree, syntax.TooSlowToParse):
            cell[3] = _("{label} could not be read: {why}").format(label=label, why=tree)
        elif isinstance(tree, SyntaxError):
            cell[3] = _("{label} has a syntax error on line {line}: {error}").format(
                label=label, line=tree.lineno, error=tree.msg
            )
        else:
            cell[3] = _("{label} is nested too deeply to be read as Python").format(label=label)
    return [tuple(cell) for cell in cells]


def _keep_definitions(
    source: str,
    tree: ast.Module,
    label: str,
    code: LearnerCode,
    module: bool = False,
    used: frozenset = frozenset(),
    imported: frozenset = frozenset(),
) -> None:
    """Keep what defines things in ``source`` (read as ``tree``). ``module``: a .py file runs as
    Python imports it, every statement but an ``if __name__ == "__main__":`` block. In a
    notebook, a compound statement (``if``/``try``/``for``/``with``) or an augmented assignment
    is kept when it binds or mutates a name of ``used`` (:func:`names.used_by_definitions`; a
    method call on a name of ``imported`` mutates nothing): demos are skipped, definitions run."""
    lines = LINE_END.split(source)
    keep = [False] * len(lines)
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Raise):  # nothing after it runs, in a kernel or an import
            if i + 1 < len(tree.body):
                code.problems.append(_stopped_by_raise(label, source, node))
                code.unread_sources.append("\n".join(lines[node.end_lineno :]))
            break
        if names.is_grader_import(node) or names.is_main_guard(node):
            continue
        if isinstance(node, KEPT):
            bound = names.bound_names(node)
        elif isinstance(node, ast.Expr) and _calls_check(node):
            continue
        elif module:
            bound = names.stored_names(node)
        elif isinstance(node, names.KEPT_IF_USED | ast.AugAssign):
            bound = names.stored_names(node, imported)
            if not bound & used:
                continue
        else:
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        for i in range(start - 1, node.end_lineno):
            keep[i] = True
        for name in sorted(bound):
            if name not in code.defined:
                code.order.append(name)
            code.defined.add(name)
        code.callables |= {
            n.name
            for n in ast.walk(node)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and n.name in bound
        }
    if any(keep):
        kept = "\n".join(ln if k else "" for ln, k in zip(lines, keep, strict=True))
        code.cells.append(Cell(label, kept))


def _stopped_by_raise(label: str, source: str, node: ast.Raise) -> str:
    """The problem of a cell whose top-level ``raise`` (the exercise stub's, left above the
    learner's code: instructor trial 50) stops it before the statements after it."""
    return _(
        "{where}, line {line}: this raise stops the cell, so the code after it never runs (in "
        "the notebook either); delete the raise above your code"
    ).format(where=_where(label, source), line=node.lineno)


def _calls_check(node: ast.Expr) -> bool:
    """``check(...)``: the notebook's own grader call, not part of the submission."""
    call = node.value
    return (
        isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "check"
    )


def from_sources(file: str, sources: list[tuple[str, str]], module: bool = False) -> LearnerCode:
    """Learner code from ``(label, source)`` pairs in execution order (``module``: one .py
    file, run as Python imports it)."""
    code = LearnerCode(file=file, cells=[], defined=set())
    used, imported = frozenset(), frozenset()
    cells = _parsed(sources)
    if not module:  # the names the definitions in any cell read
        trees = [cell[2] for cell in cells if cell[2] is not None]
        try:
            imported = names.imported(trees)
            used = frozenset(names.used_by_definitions(trees, imported))
        except RecursionError:  # scopes nested hundreds deep: keep definitions only
            pass
    for label, source, tree, skipped in cells:
        if skipped:
            code.problems.append(_("{problem}; skipped it").format(problem=skipped))
            code.unread_sources.append(source)
        elif tree is not None:
            _keep_definitions(source, tree, label, code, module, used, imported)
    return code


def unread(problems: list[str]) -> str:
    """The cells not read (``LearnerCode.problems``, at least one), as a result that may come from
    one of them says so, in ``check`` and in ``grade``: the first, and how many more."""
    more = len(problems) - 1
    if not more:
        return problems[0]
    return ngettext("{problem} (and {n} more)", "{problem} (and {n} more)", more).format(
        problem=problems[0], n=more
    )


class Unreadable(ExtractError):
    """An entry the grader refuses before reading it as text. ``kind`` says why: ``link``,
    ``folder``, ``other`` (cannot be opened, or not a regular file) or ``big`` (``size`` bytes)."""

    def __init__(self, message: str, kind: str, size: int = 0):
        super().__init__(message)
        self.kind, self.size = kind, size


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a learner's file, read without following a symbolic link and at most
    ``limit`` of them; anything else is an :class:`Unreadable` that says what was wrong."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ELOOP:
            said = _(
                "{name}: is a symbolic link. The grader reads only a regular file: submit the "
                "file itself, not a link to it."
            )
            raise Unreadable(said.format(name=path.name), "link") from e
        if e.errno == errno.ENOENT:
            said = _("{path}: no such file. Give the path of a .py file or .ipynb notebook.")
            raise Unreadable(said.format(path=path), "other") from e
        said = _("{name}: cannot open it ({why}).").format(name=path.name, why=e.strerror)
        raise Unreadable(said, "other") from e
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # before fdopen, which refuses a folder on its own terms
        os.close(fd)
        said = _("{name}: not a regular file. Give the path of a .py file or .ipynb notebook.")
        kind = "folder" if stat.S_ISDIR(info.st_mode) else "other"
        raise Unreadable(said.format(name=path.name), kind)
    with os.fdopen(fd, "rb") as f:
        if info.st_size > limit:
            raise Unreadable(_too_big(path, info.st_size, limit), "big", info.st_size)
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew while we read it
        raise Unreadable(_too_big(path, len(data), limit), "big", len(data))
    return data


def read_submission(path: str | Path, limit: int = MAX_FILE_BYTES) -> str:
    """The text of a learner's file (:func:`read_bytes`), which must be UTF-8 (after a byte-order
    mark, if any, as Python reads a ``.py``); anything else (a
    link, a folder, a device, a huge file, not UTF-8) is an :class:`ExtractError` that says what
    was wrong."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8-sig")  # a byte-order mark first: Python reads the file anyway
    except UnicodeDecodeError as e:
        said = _(
            "{name}: cannot read it as UTF-8 text ({why} at byte {at}). Save it from Jupyter or "
            "your editor as UTF-8."
        )
        raise ExtractError(said.format(name=Path(path).name, why=e.reason, at=e.start)) from e


def _too_big(path: Path, size: int, limit: int, code: bool = False) -> str:
    said = (
        _(
            "{name}: {size:.1f} MB of code, more than the {limit:.0f} MB the grader reads. A "
            "lesson's code is far smaller: remove large pasted data, and save it again."
        )
        if code
        else _(
            "{name}: {size:.1f} MB, more than the {limit:.0f} MB the grader reads. A lesson's code "
            "is far smaller: clear the outputs (Kernel > Restart and Clear All Outputs) or remove "
            "large pasted data, and save it again."
        )
    )
    return said.format(name=path.name, size=size / 2**20, limit=limit / 2**20)


def import_nbformat():
    """nbformat (imported only for notebooks: it takes longer than a .py takes to grade), without
    the IRI grammar that jsonschema, which nbformat imports, builds when ``rfc3987_syntax`` is
    installed: about 1 s of CPU in each process that reads a notebook, for a format check that
    nbformat never asks for (it validates notebooks without a format checker). Where jsonschema
    is already imported, this changes nothing; an explicit ``import rfc3987_syntax`` later still
    works."""
    if "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules:
        sys.modules["rfc3987_syntax"] = None  # seen by jsonschema as not installed
        try:
            import nbformat
        finally:
            if "rfc3987_syntax" in sys.modules and sys.modules["rfc3987_syntax"] is None:
                del sys.modules["rfc3987_syntax"]
    import nbformat

    return nbformat


def read_notebook(text: str):
    """A notebook's text as ``nbformat.reads(text, as_version=4)`` reads a version-4 notebook,
    without its validation, whose result nbformat only logs: an invalid notebook sends it to
    jsonschema's pure-Python validator, 5 s of CPU per MB before any learner code runs (red team
    round 24). nbformat 4 only: nbformat's upgrade of an older one runs on the learner's values
    unchecked (a version-3 heading became ``"#" * level``: 100 bytes made gigabytes, round 23).
    Raises ValueError for anything else, saying what to do; json.JSONDecodeError for no JSON."""
    nbformat = import_nbformat()
    notebook = json.loads(text)
    if not isinstance(notebook, dict) or "nbformat" not in notebook:
        raise ValueError("it is JSON, but not a notebook (it names no nbformat version)")
    version = notebook["nbformat"]
    if version != 4:
        raise ValueError(
            f"it says it is in nbformat {str(version)[:20]}; the grader reads nbformat 4, which "
            "Jupyter has saved since 2015: open it in Jupyter and save it"
        )
    return nbformat.versions[4].to_notebook_json(notebook)


def _notebook_sources(path: Path, text: str) -> list[tuple[str, str]]:
    nbformat = import_nbformat()

    damaged = _(
        "If you edited it by hand, re-open it in Jupyter and save it, or restore it from a "
        "checkpoint."
    )
    unreadable = _("{name}: not a readable notebook ({why}). {damaged}")
    try:
        nb = read_notebook(text)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError) as e:
        said = _("{name}: not a notebook (not valid JSON: {why}). {damaged}")
        raise ExtractError(said.format(name=path.name, why=e, damaged=damaged)) from e
    except Exception as e:  # nbformat's own errors: unknown versions, not a notebook at all
        raise ExtractError(unreadable.format(name=path.name, why=e, damaged=damaged)) from e
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        why = _("it has no list of cells")
        raise ExtractError(unreadable.format(name=path.name, why=why, damaged=damaged))
    sources = []
    for i, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        if not isinstance(source, str):
            said = _("{name}: cell {number} is damaged (it has no source text). {damaged}")
            raise ExtractError(said.format(name=path.name, number=i, damaged=damaged))
        sources.append((f"cell {i}", source))
    return sources


def from_file(path: str | Path, label: str | None = None) -> LearnerCode:
    """Read a ``.py`` file or an ``.ipynb`` notebook; never modifies it.

    ``label`` is how reports name the file (its path by default). Every way a file can fail to
    be read is an :class:`ExtractError` with a message for the learner that names only the file
    itself, not the folder it is in.
    """
    path = Path(path)
    if path.suffix not in (".py", ".ipynb"):
        said = _("{name}: expected a .py file or an .ipynb notebook, got '{suffix}'.")
        raise ExtractError(said.format(name=path.name, suffix=path.suffix))
    limit = MAX_FILE_BYTES if path.suffix == ".ipynb" else MAX_CODE_BYTES
    text = read_submission(path, limit)
    if not text.strip():
        said = _("{name}: the file is empty. Save your work and try again.")
        raise ExtractError(said.format(name=path.name))
    sources = _notebook_sources(path, text) if path.suffix == ".ipynb" else [(path.name, text)]
    size = sum(len(source.encode("utf-8")) for _label, source in sources)
    if size > MAX_CODE_BYTES:
        raise ExtractError(_too_big(path, size, MAX_CODE_BYTES, code=True))
    module = path.suffix == ".py"
    return from_sources(str(path) if label is None else label, sources, module)

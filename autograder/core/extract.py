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
import stat
from dataclasses import dataclass, field
from pathlib import Path

# A compound statement is kept when it binds or mutates a name the definitions read.
KEPT_IF_USED = ast.If | ast.Try | ast.For | ast.With
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


def _is_main_guard(node: ast.stmt) -> bool:
    """``if __name__ == "__main__":``, which importing a module does not run."""
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
    )


def _stored_names(node: ast.stmt, imported: frozenset = frozenset()) -> set[str]:
    """Names a statement binds at module level, nested blocks included (not inside a def's or
    a class's body): assignments, augmented ones, loop targets, imports, def and class; and the
    names it mutates (``TABLE.append(...)``, ``TABLE[i] = ...``) but those in ``imported``, the
    modules: ``torch.manual_seed(0)`` or ``copy.deepcopy(m)`` changes no name of the learner."""
    names: set[str] = set()
    stack: list[ast.AST] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(n.name)
            continue
        if isinstance(n, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            base = n.func.value
            if isinstance(base, ast.Name) and base.id not in imported:  # TABLE.append(...)
                names.add(base.id)
        elif isinstance(n, ast.Subscript | ast.Attribute) and isinstance(n.ctx, ast.Store):
            base = n.value
            while isinstance(base, ast.Subscript | ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id not in imported:  # TABLE[i] = ...
                names.add(base.id)
        stack.extend(ast.iter_child_nodes(n))
    return names


def _imported(trees: list[ast.Module]) -> frozenset:
    """Names that only imports bind (``torch``, ``F``, ``copy``): modules, not learner data."""
    imports, others = set(), set()
    for n in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(n, ast.Import | ast.ImportFrom):
            imports |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            others.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            others.add(n.name)
    return frozenset(imports - others)


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _at_scope(nodes: list[ast.AST]) -> tuple[set[str], set[str], set[str]]:
    """(names loaded, names stored, names nested scopes read from outside) of code at one scope:
    a nested def, lambda, class or comprehension counts by what it reads from outside itself."""
    loads, stores, inner = set(), set(), set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, _SCOPES):
            inner |= _scope_reads(n)
            if isinstance(n, ast.ClassDef):  # evaluated where the class is defined
                stack.extend([*n.decorator_list, *n.bases, *n.keywords])
                stores.add(n.name)
            elif not isinstance(n, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                a = n.args  # defaults and decorators, evaluated where the function is defined
                stack.extend([*a.defaults, *(d for d in a.kw_defaults if d is not None)])
                if not isinstance(n, ast.Lambda):
                    stack.extend(n.decorator_list)
                    stores.add(n.name)
            continue
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            stores |= {(a.asname or a.name).split(".")[0] for a in n.names}
        stack.extend(ast.iter_child_nodes(n))
    return loads, stores, inner


def _scope_reads(scope: ast.AST) -> set[str]:
    """The names a function, lambda, class body or comprehension reads from outside itself: a
    name local to a function is not one that a lambda or comprehension within it reads."""
    if isinstance(scope, ast.ClassDef):  # a method does not see the class body's names
        loads, stores, inner = _at_scope(scope.body)
        return (loads - stores) | inner
    if isinstance(scope, ast.DictComp):
        loads, stores, inner = _at_scope([scope.key, scope.value, *scope.generators])
        return (loads | inner) - stores
    if isinstance(scope, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        loads, stores, inner = _at_scope([scope.elt, *scope.generators])
        return (loads | inner) - stores
    a = scope.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    loads, stores, inner = _at_scope(body)
    declared = {x for n in ast.walk(scope) if isinstance(n, ast.Global) for x in n.names}
    return (loads | inner) - ((stores | params) - declared)


def _used_by_definitions(trees: list[ast.Module], imported: frozenset) -> set[str]:
    """The module-level names the definitions read: what every top-level ``def`` and ``class``
    and every lambda of an assignment reads, then, transitively, what a block or augmented
    assignment that binds or mutates one of those names reads (``for d in DIMS: T[d] = ...``
    when a function reads ``T``, and so ``DIMS``). Plain assignments are always kept."""
    used: set[str] = set()
    others = []
    for node in (node for tree in trees for node in tree.body):
        if _is_grader_import(node) or _is_main_guard(node):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            loads, _, inner = _at_scope([node])
            used |= loads | inner
        elif isinstance(node, ast.AugAssign | KEPT_IF_USED):
            others.append(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign):  # always kept: f = lambda x: ...
            lambdas = [n for n in ast.walk(node) if isinstance(n, ast.Lambda)]
            used |= {name for n in lambdas for name in _scope_reads(n)}
    binds = [_stored_names(node, imported) for node in others]
    grown = True
    while grown:
        grown = False
        for i, node in enumerate(others):
            if node is not None and binds[i] & used:
                loads, stores, inner = _at_scope([node])
                reads = (loads | inner) - stores  # its own loop variables are not needed
                grown |= not reads <= used
                used |= reads
                others[i] = None
    return used


def _keep_definitions(
    source: str,
    label: str,
    code: LearnerCode,
    module: bool = False,
    used: frozenset = frozenset(),
    imported: frozenset = frozenset(),
) -> None:
    """Keep what defines things. ``module``: a .py file runs as Python imports it, every
    statement but an ``if __name__ == "__main__":`` block. In a notebook, a compound statement
    (``if``/``try``/``for``/``with``) or an augmented assignment is kept when it binds or mutates
    a name of ``used`` (:func:`_used_by_definitions`; a method call on a name of ``imported``
    mutates nothing): demos are skipped, definitions run."""
    source = _strip_magics(source)
    if not source or not source.strip():
        return
    if "\0" in source:  # Python refuses the whole file (3.11: ValueError, without a line)
        line = source[: source.index("\0")].count("\n") + 1
        code.problems.append(
            f"{label} has a null byte on line {line}, which Python cannot read; skipped it"
        )
        return
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        code.problems.append(f"{label} has a syntax error on line {e.lineno}: {e.msg}; skipped it")
        return
    except (RecursionError, MemoryError, ValueError):
        code.problems.append(f"{label} is nested too deeply to be read as Python; skipped it")
        return
    lines = source.splitlines()
    keep = [False] * len(lines)
    for node in tree.body:
        if _is_grader_import(node) or _is_main_guard(node):
            continue
        if isinstance(node, KEPT):
            bound = _bound_names(node)
        elif isinstance(node, ast.Expr) and _calls_check(node):
            continue
        elif module:
            bound = _stored_names(node)
        elif isinstance(node, KEPT_IF_USED | ast.AugAssign):
            bound = _stored_names(node, imported)
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
    if not module:  # the names the definitions in any cell read
        trees = []
        for _, source in sources:
            try:
                trees.append(ast.parse(_strip_magics(source) or ""))
            except (SyntaxError, RecursionError, MemoryError, ValueError):
                pass
        try:
            imported = _imported(trees)
            used = frozenset(_used_by_definitions(trees, imported))
        except RecursionError:  # scopes nested hundreds deep: keep definitions only
            pass
    for label, source in sources:
        _keep_definitions(source, label, code, module, used, imported)
    return code


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
            raise Unreadable(
                f"{path.name}: is a symbolic link. The grader reads only a regular file: "
                "submit the file itself, not a link to it.",
                "link",
            ) from e
        if e.errno == errno.ENOENT:
            raise Unreadable(
                f"{path}: no such file. Give the path of a .py file or .ipynb notebook.", "other"
            ) from e
        raise Unreadable(f"{path.name}: cannot open it ({e.strerror}).", "other") from e
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # before fdopen, which refuses a folder on its own terms
        os.close(fd)
        raise Unreadable(
            f"{path.name}: not a regular file. Give the path of a .py file or .ipynb notebook.",
            "folder" if stat.S_ISDIR(info.st_mode) else "other",
        )
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
        raise ExtractError(
            f"{Path(path).name}: cannot read it as UTF-8 text ({e.reason} at byte {e.start}). "
            "Save it from Jupyter or your editor as UTF-8."
        ) from e


def _too_big(path: Path, size: int, limit: int, what: str = "") -> str:
    return (
        f"{path.name}: {size / 2**20:.1f} MB{what}, more than the {limit / 2**20:.0f} MB the "
        "grader reads. A lesson's code is far smaller: clear the outputs (Kernel > Restart and "
        "Clear All Outputs) or remove large pasted data, and save it again."
    )


def _notebook_sources(path: Path, text: str) -> list[tuple[str, str]]:
    import nbformat  # only for notebooks: it takes longer to import than a .py takes to grade

    damaged = (
        "If you edited it by hand, re-open it in Jupyter and save it, or restore it from a "
        "checkpoint."
    )
    try:
        nb = nbformat.reads(text, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError) as e:
        raise ExtractError(f"{path.name}: not a notebook (not valid JSON: {e}). {damaged}") from e
    except Exception as e:  # nbformat's own errors: unknown versions, not a notebook at all
        raise ExtractError(f"{path.name}: not a readable notebook ({e}). {damaged}") from e
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ExtractError(
            f"{path.name}: not a readable notebook (it has no list of cells). {damaged}"
        )
    sources = []
    for i, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        if not isinstance(source, str):
            raise ExtractError(
                f"{path.name}: cell {i} is damaged (it has no source text). {damaged}"
            )
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
        raise ExtractError(
            f"{path.name}: expected a .py file or an .ipynb notebook, got '{path.suffix}'."
        )
    limit = MAX_FILE_BYTES if path.suffix == ".ipynb" else MAX_CODE_BYTES
    text = read_submission(path, limit)
    if not text.strip():
        raise ExtractError(f"{path.name}: the file is empty. Save your work and try again.")
    sources = _notebook_sources(path, text) if path.suffix == ".ipynb" else [(path.name, text)]
    size = sum(len(source.encode("utf-8")) for _, source in sources)
    if size > MAX_CODE_BYTES:
        raise ExtractError(_too_big(path, size, MAX_CODE_BYTES, " of code"))
    module = path.suffix == ".py"
    return from_sources(str(path) if label is None else label, sources, module)

"""Which names code reads from outside its nested scopes, in time and memory linear in the code.

A statement's nested scopes (defs, lambdas, class bodies, comprehensions) each read the names
they load that no scope between them and the load binds: a function's locals (its stores and
parameters, less the names declared ``global`` anywhere within it), a comprehension's targets,
and a class body's stores for code directly in the class body only (a method does not see them).

Each name is looked up once, where it is loaded, against a stack of the depths of the scopes
that bind it on the way down; nothing is kept per scope but its own stores and parameters.
Red team rounds 26 and 27: analyses that re-read each scope at every level of its nesting, or
kept each scope's reads, cost the judge cubic time, then quadratic memory, in ``lambda:`` nested
2900 deep (98 KB: 3.3 GB).
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, field

FUNCTIONS = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
COMPREHENSIONS = ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
SCOPES = FUNCTIONS | ast.ClassDef | COMPREHENSIONS


@dataclass
class Level:
    """The code of one scope, its nested scopes' bodies apart: what it loads and stores there."""

    node: ast.AST | None  # the scope (None: the statements the analysis started from)
    depth: int
    lambdas: int = 0  # the depth of the innermost lambda at or above it (0: none)
    loads: set[str] = field(default_factory=set)
    stores: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)
    children: list[Level] = field(default_factory=list)
    span: tuple[int, int] = (0, 0)  # its place and its last descendant's in depth-first order


def _own_code(scope: ast.AST) -> list[ast.AST]:
    """What runs in the scope itself (its decorators, defaults and bases run where it is made;
    annotations are not read)."""
    if isinstance(scope, ast.ClassDef):
        return list(scope.body)
    if isinstance(scope, ast.DictComp):
        return [scope.key, scope.value, *scope.generators]
    if isinstance(scope, COMPREHENSIONS):
        return [scope.elt, *scope.generators]
    return scope.body if isinstance(scope.body, list) else [scope.body]


def _params(scope: ast.AST) -> set[str]:
    if not isinstance(scope, FUNCTIONS):
        return set()
    a = scope.args
    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x}


class Tree:
    """The levels of ``nodes`` (statements at one scope), each AST node read once."""

    def __init__(self, nodes: list[ast.AST]) -> None:
        self.root = Level(None, 0)
        self._globals: dict[str, list[int]] = {}  # a name: where `global name` is, in DFS order
        todo = [(self.root, list(nodes))]
        while todo:
            level, code = todo.pop()
            self._read_level(level, code, todo)
        self._number()

    def _read_level(self, level: Level, stack: list[ast.AST], todo: list) -> None:
        while stack:
            n = stack.pop()
            if isinstance(n, SCOPES):
                lambdas = level.depth + 1 if isinstance(n, ast.Lambda) else level.lambdas
                child = Level(n, level.depth + 1, lambdas, params=_params(n))
                level.children.append(child)
                todo.append((child, _own_code(n)))
                if isinstance(n, ast.ClassDef):
                    stack.extend([*n.decorator_list, *n.bases, *n.keywords])
                    level.stores.add(n.name)
                elif isinstance(n, FUNCTIONS):
                    a = n.args
                    stack.extend([*a.defaults, *(d for d in a.kw_defaults if d is not None)])
                    if not isinstance(n, ast.Lambda):
                        stack.extend(n.decorator_list)
                        level.stores.add(n.name)
                continue
            if isinstance(n, ast.Name):
                (level.loads if isinstance(n.ctx, ast.Load) else level.stores).add(n.id)
            elif isinstance(n, ast.Import | ast.ImportFrom):
                level.stores |= {(a.asname or a.name).split(".")[0] for a in n.names}
            elif isinstance(n, ast.Global):
                for name in n.names:
                    self._globals.setdefault(name, []).append(id(level))
            stack.extend(ast.iter_child_nodes(n))

    def _number(self) -> None:
        """Each level's span in depth-first order, and where each `global` is in that order."""
        place, where = 0, {}
        stack = [(self.root, False)]
        while stack:
            level, done = stack.pop()
            if done:
                level.span = (level.span[0], place - 1)
                continue
            level.span = (place, place)
            where[id(level)] = place
            place += 1
            stack.append((level, True))
            stack.extend((child, False) for child in reversed(level.children))
        self._globals = {n: sorted(where[i] for i in ids) for n, ids in self._globals.items()}

    def _declared(self, level: Level, name: str) -> bool:
        """Whether ``global name`` is anywhere within ``level`` (its nested scopes included)."""
        places = self._globals.get(name)
        if not places:
            return False
        first, last = level.span
        i = bisect.bisect_left(places, first)
        return i < len(places) and places[i] <= last

    def _binds(self, level: Level) -> set[str]:
        """The names ``level`` binds for every load within it (a class: none, see ``reads``)."""
        if isinstance(level.node, FUNCTIONS):
            local = level.stores | level.params
            return {n for n in local if not self._declared(level, n)}
        if isinstance(level.node, COMPREHENSIONS):
            return level.stores
        return set()

    def reads(self, lambdas_only: bool = False) -> set[str]:
        """The names loaded in the nested scopes that no scope between the load and the
        statements binds; ``lambdas_only``: loaded in a lambda and not bound between the
        innermost lambda around the load and the load (what every lambda of an assignment
        reads from outside itself, together)."""
        found: set[str] = set()
        bound: dict[str, list[int]] = {}  # a name: the depths of the scopes binding it, down
        stack: list[tuple[Level, set[str] | None]] = [(c, None) for c in self.root.children]
        while stack:
            level, leaving = stack.pop()  # leaving: the names it bound on the way down
            if leaving is not None:
                for name in leaving:
                    bound[name].pop()
                continue
            binds = self._binds(level)
            for name in binds:
                bound.setdefault(name, []).append(level.depth)
            anchor = level.lambdas if lambdas_only else 1
            if anchor:
                own = level.stores if isinstance(level.node, ast.ClassDef) else ()
                for name in level.loads:
                    depths = bound.get(name)
                    if not (depths and depths[-1] >= anchor) and name not in own:
                        found.add(name)
            stack.append((level, binds))
            stack.extend((child, None) for child in level.children)
        return found


def at_scope(nodes: list[ast.AST]) -> tuple[set[str], set[str], set[str]]:
    """(names loaded, names stored, names its nested scopes read from outside) of statements at
    one scope."""
    tree = Tree(nodes)
    return tree.root.loads, tree.root.stores, tree.reads()


def lambda_reads(node: ast.AST) -> set[str]:
    """What every lambda within ``node`` (nested ones included) reads from outside itself."""
    return Tree([node]).reads(lambdas_only=True)

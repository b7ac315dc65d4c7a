"""What the top-level statements of learner code bind, mutate and read: how ``extract`` decides
which statements the graded definitions need (scope-aware: a function's locals, its lambdas' and
comprehensions' included, are never globals)."""

from __future__ import annotations

import ast

# A compound statement is kept when it binds or mutates a name the definitions read.
KEPT_IF_USED = ast.If | ast.Try | ast.For | ast.With


def is_grader_import(node: ast.stmt) -> bool:
    """``from autograder... import check``: the grader itself is not part of the submission."""
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "autograder"
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] == "autograder" for a in node.names)
    return False


def is_main_guard(node: ast.stmt) -> bool:
    """``if __name__ == "__main__":``, which importing a module does not run."""
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
    )


def bound_names(node: ast.stmt) -> set[str]:
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


def stored_names(node: ast.stmt, imported: frozenset = frozenset()) -> set[str]:
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


def imported(trees: list[ast.Module]) -> frozenset:
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


SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def at_scope(nodes: list[ast.AST]) -> tuple[set[str], set[str], set[str]]:
    """(names loaded, names stored, names nested scopes read from outside) of code at one scope:
    a nested def, lambda, class or comprehension counts by what it reads from outside itself."""
    loads, stores, inner = set(), set(), set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, SCOPES):
            inner |= scope_reads(n)
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


def scope_reads(scope: ast.AST) -> set[str]:
    """The names a function, lambda, class body or comprehension reads from outside itself: a
    name local to a function is not one that a lambda or comprehension within it reads."""
    if isinstance(scope, ast.ClassDef):  # a method does not see the class body's names
        loads, stores, inner = at_scope(scope.body)
        return (loads - stores) | inner
    if isinstance(scope, ast.DictComp):
        loads, stores, inner = at_scope([scope.key, scope.value, *scope.generators])
        return (loads | inner) - stores
    if isinstance(scope, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        loads, stores, inner = at_scope([scope.elt, *scope.generators])
        return (loads | inner) - stores
    a = scope.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    loads, stores, inner = at_scope(body)
    declared = {x for n in ast.walk(scope) if isinstance(n, ast.Global) for x in n.names}
    return (loads | inner) - ((stores | params) - declared)


def used_by_definitions(trees: list[ast.Module], imported: frozenset) -> set[str]:
    """The module-level names the definitions read: what every top-level ``def`` and ``class``
    and every lambda of an assignment reads, then, transitively, what a block or augmented
    assignment that binds or mutates one of those names reads (``for d in DIMS: T[d] = ...``
    when a function reads ``T``, and so ``DIMS``). Plain assignments are always kept."""
    used: set[str] = set()
    others = []
    for node in (node for tree in trees for node in tree.body):
        if is_grader_import(node) or is_main_guard(node):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            loads, _, inner = at_scope([node])
            used |= loads | inner
        elif isinstance(node, ast.AugAssign | KEPT_IF_USED):
            others.append(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign):  # always kept: f = lambda x: ...
            lambdas = [n for n in ast.walk(node) if isinstance(n, ast.Lambda)]
            used |= {name for n in lambdas for name in scope_reads(n)}
    binds = [stored_names(node, imported) for node in others]
    grown = True
    while grown:
        grown = False
        for i, node in enumerate(others):
            if node is not None and binds[i] & used:
                loads, stores, inner = at_scope([node])
                reads = (loads | inner) - stores  # its own loop variables are not needed
                grown |= not reads <= used
                used |= reads
                others[i] = None
    return used

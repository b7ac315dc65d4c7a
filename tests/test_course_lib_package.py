"""The package exports every exercise of the contract (COURSE_SPEC.md) by its exact name."""

import ast
import importlib
import inspect
import pathlib
import pkgutil

import course_lib
from autograder.contract import CONTRACT, NAMES


def test_every_contract_name_is_importable_from_course_lib():
    """Each exercise's reference is in its module's ``__all__``, which the package gathers."""
    missing = [name for name in NAMES if not hasattr(course_lib, name)]
    assert not missing, (
        f"not importable from course_lib (add each to its module's __all__): {missing}"
    )
    unlisted = set(NAMES) - set(course_lib.__all__)
    assert not unlisted, f"add {sorted(unlisted)} to its course_lib module's __all__"
    assert len(course_lib.__all__) == len(set(course_lib.__all__)), "a name in two modules"


def test_course_lib_imports_nothing_of_the_grader():
    """The reference library stands alone: the grader depends on it, never the other way."""
    for path in inspect.getfile(course_lib).rsplit("/", 1)[0:1]:
        for module in sorted(pathlib.Path(path).glob("*.py")):
            for node in ast.walk(ast.parse(module.read_text())):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else []
                )
                assert not any(n.split(".")[0] == "autograder" for n in names), module.name


def test_each_reference_is_where_the_contract_table_says():
    for e in CONTRACT:
        module, _, name = e.reference.partition(":")
        assert name == e.name, e.reference
        assert getattr(course_lib, e.name) is pkgutil.resolve_name(e.reference)
        assert getattr(importlib.import_module(module), name).__module__ == module


def test_each_reference_takes_the_contract_signature():
    """The reference's parameters start with the contract's, with the same defaults (it may take
    more, e.g. ``device=``, after them)."""
    for e in CONTRACT:
        params = list(inspect.signature(getattr(course_lib, e.name)).parameters.values())
        spec = ast.parse(f"def f{e.signature}: pass").body[0].args
        defaults = [None] * (len(spec.args) - len(spec.defaults)) + spec.defaults
        assert len(params) >= len(spec.args), e.name
        for p, arg, default in zip(params, spec.args, defaults, strict=False):
            assert p.name == arg.arg, (e.name, p.name, arg.arg)
            want = inspect.Parameter.empty if default is None else ast.literal_eval(default)
            assert p.default == want, (e.name, p.name, p.default, want)


def test_everything_in_all_is_importable_including_pick_device():
    for name in course_lib.__all__:
        assert getattr(course_lib, name) is not None
    from course_lib import pick_device

    assert callable(pick_device)


def test_every_reference_has_a_docstring():
    for name in NAMES:
        assert (getattr(course_lib, name).__doc__ or "").strip(), f"{name} has no docstring"


def test_every_module_imports_on_its_own():
    modules = [m.name for m in pkgutil.iter_modules(course_lib.__path__)]
    assert {"data", "memory", "device"} | {e.module.split(".")[-1] for e in CONTRACT} <= set(
        modules
    )
    for module in modules:
        importlib.import_module(f"course_lib.{module}")

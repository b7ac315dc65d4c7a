"""The trust line is a folder: ``autograder/sandbox/inside/`` is all of the grader that the sandbox
holds (with the protocol and two package markers), and nothing outside it imports it."""

import ast
from pathlib import Path

import course_lib
from autograder.contract import REFERENCE_MODULES
from autograder.sandbox.host.bwrap import SANDBOX_FILES

ROOT = Path(__file__).resolve().parents[2]
GRADER = ROOT / "autograder"
INSIDE = GRADER / "sandbox" / "inside"
MARKERS = ("autograder/__init__.py", "autograder/sandbox/__init__.py")


def _imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_the_sandbox_holds_one_folder_of_the_grader_the_protocol_and_two_markers():
    grader = {dest for dest in SANDBOX_FILES if dest.startswith("autograder/")}
    inside = {f"autograder/sandbox/inside/{p.name}" for p in INSIDE.glob("*.py")}
    assert grader == inside | set(MARKERS) | {"autograder/sandbox/protocol.py"}
    for dest, src in SANDBOX_FILES.items():
        assert Path(src).is_file(), dest
        if dest.startswith("course_lib/") and dest != "course_lib/__init__.py":
            assert f"course_lib.{Path(dest).stem}" not in REFERENCE_MODULES, dest  # no reference


def test_the_package_markers_the_sandbox_holds_are_docstrings_only():
    for marker in MARKERS:
        body = ast.parse((ROOT / marker).read_text()).body
        assert len(body) == 1 and isinstance(body[0].value, ast.Constant), marker


def test_host_code_never_imports_what_runs_inside():
    for path in GRADER.rglob("*.py"):
        if INSIDE in path.parents:
            continue
        inside = {m for m in _imported(path) if m.startswith("autograder.sandbox.inside")}
        assert not inside, f"{path.relative_to(ROOT)} imports {inside}: go through the protocol"


def test_what_runs_inside_imports_only_itself_the_protocol_and_course_lib_helpers():
    for path in INSIDE.glob("*.py"):
        for module in _imported(path):
            top = module.split(".")[0]
            if top == "autograder":
                assert module.startswith(
                    ("autograder.sandbox.inside", "autograder.sandbox.protocol")
                ), f"{path.name} imports {module}, which the sandbox does not hold"
            elif top == "course_lib":
                assert module.rpartition(".")[0] not in REFERENCE_MODULES, (path.name, module)


def test_the_sandbox_course_lib_offers_every_helper_of_the_real_one():
    """The stand-in ``course_lib`` (``inside/course_lib_stub.py``) maps each helper of
    ``course_lib.__all__`` that lives outside a reference module to its module."""
    tree = ast.parse((INSIDE / "course_lib_stub.py").read_text())
    [helpers] = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "HELPERS"
    ]
    want = {}
    for name in course_lib.__all__:
        module = getattr(getattr(course_lib, name), "__module__", None)
        if module not in REFERENCE_MODULES:
            want[name] = module.removeprefix("course_lib.")
    assert helpers == want

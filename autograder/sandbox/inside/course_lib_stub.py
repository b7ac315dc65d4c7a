"""``course_lib`` as the grader's sandbox has it: the helpers, not the reference.

Inside the sandbox this file is ``course_lib/__init__.py``, next to the helper modules that lesson
notebooks import in their set-up cells (``data``, ``viz``, ``device``...), so those cells
still run while a notebook is graded. The reference implementations of the exercises are not in the
sandbox at all. Importing one still works (a lesson imports the reference ``QKVProjection`` for a
demo), but what it gives is a stand-in: calling it reports the use of the course's reference to the
judge at once (the exercise scores nothing, with the ``uses-reference`` mistake) and raises an
``ImportError`` that says why.
"""

import importlib
import importlib.abc
import importlib.util
import sys
from pathlib import Path

HELPERS = {
    "toy_sentence": "data",
    "toy_task_batch": "data",
    "toy_task_sequences": "data",
    "MemoryTracker": "memory",
    "pick_device": "device",
}
# The helper modules the sandbox holds: the files next to this one (never a reference).
PRESENT = {p.stem for p in Path(__file__).parent.glob("*.py") if p.stem != "__init__"}


class Reference:
    """Where the course's reference ``course_lib.<name>`` would be."""

    def __init__(self, name: str):
        self.name = f"course_lib.{name}"

    def __repr__(self) -> str:
        return f"<{self.name}: the course's reference, not available while grading>"

    def __mro_entries__(self, bases):  # class Mine(course_lib.TinyTransformer): a subclass
        self()

    def __call__(self, *args, **kwargs):
        report = getattr(sys.modules.get("autograder.sandbox.inside.watch"), "report", None)
        if report is not None:
            report("forbidden", self.name)
        raise ImportError(
            f"{self.name} is the course's reference, which is not available while your code is "
            "graded: the grader judges your own definitions, so your code must not depend on it"
        )


def _stand_in(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return Reference(name)


class _NoReference(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``course_lib.masks`` and the like: modules of stand-ins."""

    def find_spec(self, name, path=None, target=None):
        parts = name.split(".")
        if parts[0] == "course_lib" and len(parts) == 2 and parts[1] not in PRESENT:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__getattr__ = _stand_in


sys.meta_path.insert(0, _NoReference())


def __getattr__(name: str):
    if name in HELPERS:
        return getattr(importlib.import_module(f"course_lib.{HELPERS[name]}"), name)
    return _stand_in(name)

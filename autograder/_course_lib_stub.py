"""``course_lib`` as the grader's sandbox has it: the helpers, not the reference.

Inside the sandbox this file is ``course_lib/__init__.py``, next to the helper modules that lesson
notebooks import in their set-up cells (``data``, ``viz``, ``device``, ``memory``), so those cells
still run while a notebook is graded. The reference implementations of the exercises are not in the
sandbox at all: importing one raises an ``ImportError`` that says so.
"""

import importlib
import importlib.abc
import sys

HELPERS = {
    "toy_sentence": "data",
    "toy_task_batch": "data",
    "toy_task_sequences": "data",
    "MemoryTracker": "memory",
    "pick_device": "device",
}
PRESENT = ("data", "viz", "device", "memory")


def _absent(name: str) -> ImportError:
    return ImportError(
        f"{name} is the course's reference, which is not available while your code is graded: "
        "the grader judges your own definitions, so your code must not depend on it"
    )


class _NoReference(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        parts = name.split(".")
        if parts[0] == "course_lib" and len(parts) > 1 and parts[1] not in PRESENT:
            raise _absent(name)
        return None


sys.meta_path.insert(0, _NoReference())


def __getattr__(name: str):
    if name in HELPERS:
        return getattr(importlib.import_module(f"course_lib.{HELPERS[name]}"), name)
    if name.startswith("__"):
        raise AttributeError(name)
    raise _absent(f"course_lib.{name}")

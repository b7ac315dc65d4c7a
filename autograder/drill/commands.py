"""The commands the trainer suggests, spelled so that they work from where the candidate is.

- Run by ``make drill`` (``MAKELEVEL`` and the Makefile's ``DRILL_FROM`` are set, not by another
  make target such as ``make test``): ``make drill DRILL="VERB ..."`` from the repository's root,
  ``make -C PATH drill DRILL=...`` when make was run elsewhere (``make -C course drill``): where it
  was run is ``DRILL_FROM`` (make's own ``PWD``).
- ``python`` on the PATH is this interpreter (an activated virtual environment, or a conda
  environment): ``python -m autograder drill VERB ...``.
- Otherwise this interpreter by its path: ``.venv/bin/python`` when the candidate is in the
  repository's root, the full path elsewhere (the course is installed into it, so
  ``-m autograder`` works from any directory).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def _python() -> str:
    found = shutil.which("python")
    if found and Path(found).parent.resolve() == Path(sys.executable).parent.resolve():
        return "python"
    exe = Path(sys.executable)
    try:
        rel = exe.absolute().relative_to(Path.cwd())
        return shlex.quote(str(rel))
    except ValueError:
        return shlex.quote(str(exe.absolute()))


def _make() -> str:
    """``make``, with ``-C PATH`` when make was run from another directory than the root's."""
    origin, root = Path(os.environ["DRILL_FROM"]), Path.cwd()
    if origin.resolve() == root.resolve():
        return "make"
    return f"make -C {shlex.quote(os.path.relpath(root, origin))}"


def command(*words: str) -> str:
    """The trainer's command line for ``words`` (e.g. ``command("check", "drill_mha.py")``)."""
    verb = " ".join(shlex.quote(w) for w in words)
    if os.environ.get("MAKELEVEL") and os.environ.get("DRILL_FROM"):  # run by `make drill`
        make = _make()
        return f'{make} drill DRILL="{verb}"' if verb else f"{make} drill"
    return f"{_python()} -m autograder drill {verb}".rstrip()

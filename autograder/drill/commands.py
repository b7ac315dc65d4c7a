"""The commands the trainer suggests, spelled so that they work from where the candidate is.

- Run by ``make drill`` (``MAKELEVEL`` is set): ``make drill DRILL="VERB ..."``, from the
  repository's root, where make was run.
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


def command(*words: str) -> str:
    """The trainer's command line for ``words`` (e.g. ``command("check", "drill_mha.py")``)."""
    verb = " ".join(shlex.quote(w) for w in words)
    if os.environ.get("MAKELEVEL"):
        return f'make drill DRILL="{verb}"' if verb else "make drill"
    return f"{_python()} -m autograder drill {verb}".rstrip()

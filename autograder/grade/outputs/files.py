"""Every file ``grade`` writes is written whole or not at all.

:func:`write_text` writes to a temporary file in the same folder, then puts it in place with
``os.replace``: a grader that crashes midway leaves the earlier file as it was, never an empty or
half-written one (``<out stem>_results.json`` holds the class's earlier results). Text is UTF-8;
a lone surrogate (a learner's file or folder name that is not UTF-8, as ``os.fsdecode`` reads it)
is written as its escape ``\\udcff``, which JSON reads back as the same character.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path

UMASK = os.umask(0o022)  # read once, at import (os.umask can only be read by setting it)
os.umask(UMASK)


def write_csv(path: Path, rows) -> Path:
    """Write ``rows`` (lists of cells) as a CSV file, atomically."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    return write_text(path, buffer.getvalue())


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (see above); the folder must exist."""
    data = text.encode("utf-8", errors="backslashreplace")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:32]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~UMASK)  # as open() would have made it
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
    return path

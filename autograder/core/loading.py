"""Loading the judge's libraries (torch, nbformat, matplotlib) without the garbage collector.

Nearly everything an import makes lives as long as the process, yet the cyclic collector goes
over it again and again while it grows: loading the judge ran some 40 collections, 0.18 of its
1.35 CPU-s. Inside :func:`loading` there are none; what was loaded is then frozen (``gc.freeze``:
later collections skip it, as the sandbox's server does before it forks) and collection resumes.
"""

from __future__ import annotations

import contextlib
import gc
import sys


@contextlib.contextmanager
def loading():
    """No cyclic collections inside; where a module was loaded, what exists at the end is kept
    out of later ones. Only then: a process that runs the same command again (the warm grader,
    a test session) would otherwise freeze each time the garbage of the runs before it that no
    collection had reached yet, and never free it."""
    enabled, loaded = gc.isenabled(), len(sys.modules)
    gc.disable()
    try:
        yield
    finally:
        if len(sys.modules) > loaded:
            gc.freeze()
        if enabled:  # an outer `loading` turns it back on at its own end
            gc.enable()

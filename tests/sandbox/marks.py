"""Marks the sandbox tests share."""

import pytest

from autograder.sandbox.host import bwrap

NEEDS_BWRAP = pytest.mark.skipif(
    not bwrap.strong_isolation_available(),
    reason="needs bubblewrap (the OS-level sandbox): apt-get install bubblewrap",
)

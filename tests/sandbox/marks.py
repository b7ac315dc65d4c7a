"""Marks and helpers the sandbox tests share."""

from types import SimpleNamespace

import pytest

from autograder.sandbox.host import bwrap
from autograder.sandbox.host.server import Server
from autograder.sandbox.host.submission import Submission

NEEDS_BWRAP = pytest.mark.skipif(
    not bwrap.strong_isolation_available(),
    reason="needs bubblewrap (the OS-level sandbox): apt-get install bubblewrap",
)


def called_in(server: Server, name: str, code: str):
    """``name()`` of ``code`` (a file's source), in a new learner process of ``server``: what a
    process forked from the server finds there."""
    with Submission([(f"{name}.py", code)], {}, server=server) as sub:
        sub.begin(SimpleNamespace(name=name, time_limit=20.0))
        return sub.call(name)

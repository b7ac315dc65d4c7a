"""Which sandbox a submission runs in: this process's own (``check``), or the one a ``grade``
worker thread opened with :func:`isolated` (each notebook its own, or one kept per thread)."""

from __future__ import annotations

import contextlib
import threading

from autograder._server import Server

_server_lock = threading.Lock()
_default: Server | None = None
_local = threading.local()
_kept: list[Server] = []  # the sandboxes isolated(fresh=False) keeps, for close_kept()


def default_server() -> Server:
    """This process's sandbox (for ``check``), started on first use (and again if it died)."""
    global _default
    with _server_lock:
        if _default is None or not _default.alive():
            if _default is not None:
                _default.close()
            _default = Server()
        return _default


def current_server() -> Server:
    """The sandbox the calling thread's submissions run in."""
    own = getattr(_local, "server", None)
    if own is not None and not own.alive():  # killed by its learner: a fresh one, just as strict
        own.close()
        own = _local.server = Server(strong=own.strong)
    return own or default_server()


@contextlib.contextmanager
def isolated(*, allow_weak: bool = False, fresh: bool = True):
    """The sandbox for every submission judged in this thread inside the block.

    With ``fresh`` (the default), a new sandbox, ended with the block: ``grade`` gives each
    notebook its own. With ``fresh=False``, this thread's own sandbox, kept for its next block:
    never used by two submissions at once, and reset between them (every process killed, the
    tmpfs emptied), which saves starting one per notebook (seconds of CPU each).

    Without bubblewrap it raises :class:`SandboxUnavailable`, unless ``allow_weak`` (the
    instructor accepted the risk: process isolation only).
    """
    strong = None if allow_weak else True
    kept = getattr(_local, "kept", None)
    if fresh or kept is None or not kept.alive() or (strong and not kept.strong):
        if not fresh and kept is not None:
            kept.close()
        server = Server(strong=strong)
        if not fresh:
            _local.kept = server
            with _server_lock:
                _kept.append(server)
    else:
        server = kept
    previous = getattr(_local, "server", None)
    _local.server = server
    try:
        yield server
    finally:
        _local.server = previous
        if fresh:
            server.close()


def close_kept() -> None:
    """End every sandbox kept by ``isolated(fresh=False)`` (when a class is graded: their threads
    are done, and nothing else would end them before this process exits)."""
    with _server_lock:
        servers, _kept[:] = list(_kept), []
    for server in servers:
        server.close()


def warm_up() -> None:
    """Start the sandbox now (torch loads there once) so the first check answers fast."""
    default_server()

"""Which sandbox a submission runs in: this process's own (``check``), or the one a ``grade``
worker thread opened with :func:`isolated` (each notebook its own, or one kept per thread)."""

from __future__ import annotations

import contextlib
import queue
import threading

from autograder.sandbox.host import bwrap
from autograder.sandbox.host.server import SandboxUnavailable, Server

STARTUP_TIMEOUT = 300.0  # seconds a sandbox's server may take to load torch (a very busy machine)
# seconds a kept sandbox may take to reset (kill everything, empty its tmpfs, each inode-capped:
# well under a second); past it, the sandbox is discarded and the next submission gets a new one
RESET_TIMEOUT = 60.0
LAUNCH_WAIT = 5.0  # seconds start_ahead waits for its first sandbox's launch (tens of ms)

_server_lock = threading.Lock()  # the kept and spare sandboxes, the starter thread
_default_lock = threading.Lock()  # this process's own sandbox (held while it starts)
_default: Server | None = None
_local = threading.local()
_kept: list[Server] = []  # the sandboxes isolated(fresh=False) keeps, for close_kept()
_spares: list[Server] = []  # started ahead (start_ahead), never used: the next blocks take them
# A class's kept sandboxes that reset clean, at most this many, stay for the next class graded in
# this process (retire_kept): a test session's next `grade`, the warm grader's next request.
RETIRED = 2
_durable: set[Server] = set()  # started in the starter thread: they outlive the threads using them
_keepers: dict[Server, threading.Thread] = {}  # a kept sandbox: the thread whose blocks use it


def default_server(*, wait: bool = True) -> Server:
    """This process's sandbox (for ``check``), started on first use (and again if it died).

    Where bubblewrap is installed but not yet probed, the sandbox starts in it at once: its
    server becoming ready proves that bubblewrap works, so the probe (a second sandboxed Python,
    run first) does not delay the first check. ``wait``: until that is known (a submission is
    about to run); one that stops before it is ready gives way to the probe, which says why and
    chooses. Without ``wait`` (a warm-up), return as soon as the sandbox is starting.
    """
    global _default
    with _default_lock:
        if _default is not None and not _default.alive():
            _default.close()
            _default = Server() if _default.tentative else None  # tentative: bubblewrap failed
        if _default is None and bwrap.unprobed():
            try:
                _default = Server(strong=True, probe=False)
            except SandboxUnavailable:  # the probe says why, and chooses
                pass
        if _default is None:
            _default = Server()
        if wait and _default.tentative:
            if _default.wait_ready(STARTUP_TIMEOUT):
                bwrap.proven()
                _default.tentative = False
            else:
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
    never used by two submissions at once, and reset at the end of each block, before it is
    handed on (every process killed, every tmpfs emptied; the time it takes is the submission's
    own), which saves starting one per notebook (seconds of CPU each). A sandbox that dies, or
    does not reset in :data:`RESET_TIMEOUT`, is discarded: the next block starts a new one.

    Without bubblewrap it raises :class:`SandboxUnavailable`, unless ``allow_weak`` (the
    instructor accepted the risk: process isolation only).
    """
    strong = None if allow_weak else True
    kept = getattr(_local, "kept", None)
    if fresh or kept is None or not kept.alive() or (strong and not kept.strong):
        if not fresh and kept is not None:
            kept.close()
        if fresh:
            server = _spare(strong) or Server(strong=strong)
        else:
            server = _spare(strong) or _start_durable(strong)
            _local.kept = server
            with _server_lock:
                _kept.append(server)
                _keepers[server] = threading.current_thread()
    else:
        server = kept
    previous = getattr(_local, "server", None)
    _local.server = server
    try:
        yield server
    finally:
        used = _local.server  # another one if the sandbox died meanwhile (current_server)
        _local.server = previous
        if fresh:
            server.close()
            used.close()
        else:
            clean = used.alive() and used.reset(RESET_TIMEOUT)
            with _server_lock:
                for s in {server, used}:
                    if s in _kept:
                        _kept.remove(s)
                if clean:
                    _kept.append(used)
                    _keepers[used] = threading.current_thread()
            ended = [s for s in {server, used} if s is not used or not clean]
            with _server_lock:
                for s in ended:
                    _durable.discard(s)
                    _keepers.pop(s, None)
            for s in ended:
                s.close()
            _local.kept = used if clean else None


def start_ahead(count: int, *, allow_weak: bool = False) -> None:
    """Start ``count`` sandboxes now, in the background, for the next :func:`isolated` blocks to
    take: their servers load torch while the judge is still starting up (``grade``, before it
    imports the checks). Each is new and unused when taken, like one started by the block. It
    returns once the first is launched: the caller's next step, importing torch, holds the
    interpreter for 0.2 s at a time (loading its library), and the starter thread, which needs
    it to launch one, waited that long on an idle core (a class of 20 took 0.2 s longer).

    Where bubblewrap is installed but not yet probed, they start in it without the probe (a
    sandboxed Python run first, which held them back while the judge's imports held the
    interpreter): one that cannot start there dies, and a block never takes a dead one; the
    grader probes before it judges anything (``grade_class``), and refuses without bubblewrap."""
    strong = None if allow_weak else True
    launched = threading.Event()

    def start() -> None:
        probe = not (strong and bwrap.unprobed())
        with _server_lock:  # those kept from the last class (retire_kept) count
            ready = sum(1 for s in _spares if s.alive() and (s.strong or not strong))
        try:
            for _ in range(count - ready):
                try:
                    server = Server(strong=strong, probe=probe)
                except Exception:  # no sandbox here: the grader says so when it needs one
                    return
                with _server_lock:
                    _durable.add(server)
                    _spares.append(server)
                launched.set()
        finally:
            launched.set()

    _in_background(start)
    launched.wait(LAUNCH_WAIT)


def _start_durable(strong: bool | None) -> Server:
    """A new sandbox, started in the starter thread (:func:`_in_background`), so that it outlives
    the grading thread that asked for it and can serve the next class (:func:`retire_kept`)."""
    done: queue.SimpleQueue = queue.SimpleQueue()

    def start() -> None:
        try:
            server = Server(strong=strong)
        except BaseException as e:  # SandboxUnavailable: raised in the caller's thread
            done.put(e)
            return
        with _server_lock:
            _durable.add(server)
        done.put(server)

    _in_background(start)
    result = done.get()
    if isinstance(result, BaseException):
        raise result
    return result


def _spare(strong: bool | None) -> Server | None:
    """A sandbox started ahead and never used (or lent clean, :func:`lend_default`, or kept clean
    from the last class, :func:`retire_kept`), as strong as asked, if there is one."""
    with _server_lock:
        while _spares:
            server = _spares.pop(0)
            keeper = _keepers.get(server)
            if server in _kept or (keeper is not None and keeper.is_alive()):
                continue  # in use (never two submissions in one sandbox): not a spare
            if server.alive() and (server.strong or not strong):
                return server
            server.close()
    return None


def started_default() -> Server | None:
    """This process's own sandbox if it has been started (never starts one)."""
    return _default


def lend_default() -> None:
    """Hand this process's own sandbox, if it is strong, to the next :func:`isolated` block (the
    warm grader's ``grade``: its first notebook takes the warm sandbox). It is reset first, as a
    kept sandbox is before it is handed on; one that does not reset in :data:`RESET_TIMEOUT` is
    not lent. It is this process's own again after the class (:func:`retire_kept`) if it reset
    clean at the end of its last notebook; the block's end or :func:`close_kept` may close it, and
    :func:`default_server` then starts a fresh one."""
    server = _default
    if server is None or not server.strong or not server.alive():
        return
    with _server_lock:
        if server in _spares or server in _kept:  # lent already (a request that graded nothing)
            return
    if server.reset(RESET_TIMEOUT):
        with _server_lock:
            _spares.insert(0, server)


def reclaim_default() -> None:
    """This process's own sandbox is no longer lent (the ``grade`` request that was lent it has
    ended, having graded nothing or not): never a spare for a later request to take again.
    Red team round 24: a ``grade`` that ended before grading left it among the spares, the next
    one lent it again, and two of that class's threads took the same sandbox at once."""
    with _server_lock:
        _spares[:] = [s for s in _spares if s is not _default]


def close_kept() -> None:
    """End every sandbox kept by ``isolated(fresh=False)`` or started ahead and not used (their
    threads are done, and nothing else would end them before this process exits)."""
    with _server_lock:
        servers, _kept[:], _spares[:] = [*_kept, *_spares], [], []
        _keepers.clear()
        _durable.clear()
    for server in servers:
        server.close()


def retire_kept() -> None:
    """A class is graded: up to :data:`RETIRED` of its sandboxes stay for the next class graded
    in this process, as spares, and the others end (:func:`close_kept` ends them all). Those that
    stay are sandboxes kept by ``isolated(fresh=False)`` that reset clean at the end of their last
    notebook (every process killed, every tmpfs emptied, verified: as one is handed from notebook
    to notebook within a class), or started ahead and never used; never one a live thread still
    keeps, or one that would die with the thread that started it. This process's own sandbox
    (lent to the class: :func:`lend_default`) is its own again on the same terms, not a spare:
    restarting it cost the warm grader a sandbox's start (seconds of CPU) after every ``grade``,
    beside the next request."""
    with _server_lock:
        candidates = [*_spares, *_kept]
        _kept[:], _spares[:] = [], []
        stay: list[Server] = []
        for server in candidates:
            keeper = _keepers.get(server)
            free = server.alive() and (keeper is None or not keeper.is_alive())
            if server is _default:
                if free:
                    stay.append(server)
            elif len(stay) < RETIRED + (_default in stay) and server in _durable and free:
                stay.append(server)
        _spares[:] = [s for s in stay if s is not _default]
        for server in candidates:
            _keepers.pop(server, None)
            if server not in stay:
                _durable.discard(server)
    for server in candidates:
        if server not in stay:
            server.close()


def warm_up(*, background: bool = False) -> None:
    """Start this process's sandbox now (torch loads there once) so the first check answers fast;
    ``background``: return at once (a notebook's import cell), the sandbox starting meanwhile."""
    if background:
        _in_background(_warm_up_quietly)
    else:
        default_server(wait=False)


_jobs: queue.SimpleQueue = queue.SimpleQueue()
_starter: threading.Thread | None = None


def _in_background(job) -> None:
    """Run ``job`` in the one thread that starts sandboxes in the background. It lives as long as
    this process: a sandbox dies with the *thread* that started it (bubblewrap's
    --die-with-parent is the kernel's parent-death signal, sent when that thread ends)."""
    global _starter
    with _server_lock:
        if _starter is None:
            _starter = threading.Thread(target=_start_jobs, name="sandbox-starter", daemon=True)
            _starter.start()
    _jobs.put(job)


def _start_jobs() -> None:
    while True:
        _jobs.get()()


def _warm_up_quietly() -> None:
    try:
        default_server(wait=False)
    except Exception:  # the check that needs it says what went wrong
        pass


def default_ready() -> bool:
    """Is this process's sandbox started and warm (a check need not wait for it)? Never waits."""
    server = _default
    return server is not None and server.ready()

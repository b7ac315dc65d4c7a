"""What the command line and the kernels call to reach the warm grader. Imports no torch.

:func:`run_cli` runs ``python -m autograder check|progress|drill check ...`` in the grader (the
caller's own stdin, stdout and stderr, working folder and environment go with it, so the output
is byte for byte the direct path's) and returns its exit status; :func:`judge` grades sources or
a file for a kernel's ``check()`` and ``progress`` and returns the results as data. Both return
None when the grader cannot be used (turned off, an unsafe runtime folder, it did not start): the
caller then grades in its own process, as before, and the first such failure is said once.

The grader starts on first use (:func:`connect`), detached, and :func:`start_ahead` starts it
in the background (a lesson's import cell, ``make lab``). A request from code other than the
grader's own (the fingerprint differs) makes it step down, and a new one starts.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time

from autograder import i18n
from autograder.service import runtime

ENV = "AUTOGRADER_DAEMON"  # 0/off: grade in the caller's own process
NO_DAEMON = i18n.N_(
    "grade in this process, not in the warm grader (autograder/service/; also AUTOGRADER_DAEMON=0)"
)
START_TIMEOUT_S = 60.0  # for the supervisor's socket (it imports no torch; a very busy machine)
VERBS = (["check"], ["progress"], ["drill", "check"], ["grade"])
INSIDE = False  # True in the grader's own workers: what they run never asks the grader again
_turned_off = False  # set by turn_off(): --no-daemon for the rest of this process
NOTE = i18n.N_(
    "note: the warm grader is not used ({why}); grading in this process, as before (slower)."
)
_failed: str | None = None  # why the grader could not be used in this process (said once)
_lock = threading.Lock()  # one start of the grader at a time
_noted = threading.Lock()


class Unavailable(RuntimeError):
    """The grader cannot be used now (the caller grades in its own process)."""


class Interrupted(RuntimeError):
    """The grader stopped after it had started a request (its output may be partial)."""


def enabled(argv: list[str] = ()) -> bool:
    off = _turned_off or os.environ.get(ENV, "1").strip().lower() in ("0", "off", "no", "false")
    return not (INSIDE or off or "--no-daemon" in argv or _failed)


def turn_off() -> None:
    """Grade in this process from now on (a verb given ``--no-daemon``)."""
    global _turned_off
    _turned_off = True


def _note(why: str) -> None:
    global _failed
    with _noted:  # said once, whichever of this process's threads fails first (progress's)
        if _failed:
            return
        _failed = why
    print(i18n._(NOTE).format(why=why), file=sys.stderr, flush=True)


def _where() -> runtime.Paths:
    try:
        return runtime.paths(runtime.runtime_dir())
    except runtime.Unsafe as e:
        raise Unavailable(str(e)) from None


def _try_connect(where: runtime.Paths) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(where.socket))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except OSError as e:  # e.g. a path too long for a Unix socket
        sock.close()
        said = i18n._("cannot reach {socket}: {problem}")
        raise Unavailable(said.format(socket=where.socket, problem=e.strerror or e)) from None
    return sock


def _spawn(where: runtime.Paths) -> None:
    """Start the supervisor: its own session, then a second fork (it is nobody's child)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(runtime.ROOT), env.get("PYTHONPATH")]))
    env["MPLBACKEND"] = "Agg"  # not a kernel's inline backend: the grader draws off-screen
    with open(where.log, "a") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "autograder.service.daemon", str(where.socket)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    try:
        proc.wait(timeout=START_TIMEOUT_S)  # the first fork's parent exits at once
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def connect(*, start: bool = True) -> socket.socket:
    """A connection to this checkout's grader, started first if it is not running."""
    where = _where()
    sock = _try_connect(where)
    if sock is not None or not start:
        if sock is None:
            raise Unavailable(i18n._("it is not running"))
        return sock
    with _lock:
        sock = _try_connect(where)  # another thread of this process may have started it
        if sock is not None:
            return sock
        _spawn(where)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            sock = _try_connect(where)
            if sock is not None:
                return sock
            time.sleep(0.05)
    said = i18n._("it did not start in {seconds} s (see {log})")
    raise Unavailable(said.format(seconds=f"{START_TIMEOUT_S:.0f}", log=where.log))


def _ask(message: dict, fds: list[int] = (), on_queued=None) -> dict:
    """Send one request, follow the grader's notices, return its reply."""
    message = {**message, "fingerprint": runtime.fingerprint()}
    for _ in range(3):  # a stale grader steps down; the next attempt starts a fresh one
        try:
            sock = connect()
        except OSError as e:
            raise Unavailable(str(e)) from None
        started = stopping = False
        try:
            runtime.send(sock, message, fds)
            while True:
                try:
                    reply, _ = runtime.receive(sock)
                except KeyboardInterrupt:  # Ctrl-C: the grader stops the request and says so
                    if stopping or not started:
                        raise
                    stopping = True
                    sock.shutdown(socket.SHUT_WR)  # what it takes for the caller hanging up
                    continue
                if reply.get("queued"):
                    if on_queued:
                        on_queued()
                elif reply.get("started"):
                    started = True
                else:
                    break
        except (OSError, ValueError) as e:
            if started:
                raise Interrupted(str(e)) from None
            raise Unavailable(i18n._("it stopped ({problem})").format(problem=e)) from None
        finally:
            sock.close()
        if "unavailable" in reply:
            said = i18n._(str(reply["unavailable"]))  # the supervisor's msgid, in our words
            raise Unavailable(said.format(log=reply.get("log", "")))
        if not reply.get("stale"):
            return reply
    raise Unavailable(i18n._("it kept restarting"))


def _stream(stream) -> dict:
    return {
        "encoding": getattr(stream, "encoding", None),
        "errors": getattr(stream, "errors", None),
        "line_buffering": getattr(stream, "line_buffering", False),
    }


def _std_fds() -> tuple[list[int], list[int]]:
    """This process's descriptors 0, 1, 2 (``/dev/null`` for a closed one); the ones opened."""
    fds, opened = [], []
    for n in (0, 1, 2):
        try:
            os.fstat(n)
            fds.append(n)
        except OSError:
            opened.append(os.open(os.devnull, os.O_RDWR))
            fds.append(opened[-1])
    return fds, opened


def run_cli(argv: list[str]) -> int | None:
    """``python -m autograder ARGV`` in the warm grader: its exit status, or None when the caller
    should run it itself (not a grading verb, help asked for, the grader off or unavailable)."""
    try:
        _, bare = i18n.split_lang(argv)  # `--lang zh-CN check ...` is a grading verb too
    except ValueError:
        return None  # the direct path says what is wrong
    if not any(bare[: len(verb)] == verb for verb in VERBS) or not enabled(argv):
        return None
    if {"-h", "--help"} & set(argv):
        return None
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    message = {
        "kind": "cli",
        "argv": list(argv),
        "argv0": sys.argv[0] if sys.argv else "autograder",
        "cwd": cwd,
        "env": dict(os.environ),
        "launched": runtime.launched(),  # the grader's own start is not when this was asked
        "stdout": _stream(sys.stdout),
        "stderr": _stream(sys.stderr),
    }
    sys.stdout.flush()
    sys.stderr.flush()
    fds, opened = _std_fds()
    try:
        return int(_ask(message, fds)["status"])
    except KeyboardInterrupt:  # before the request started, or a second Ctrl-C: as a shell says
        return 130
    except Unavailable as e:
        _note(str(e))
        return None
    except Interrupted as e:
        said = i18n._(
            "error: the warm grader stopped while grading ({problem}); run again, or with "
            "--no-daemon"
        )
        print(said.format(problem=e), file=sys.stderr)
        return 2
    finally:
        for fd in opened:
            os.close(fd)


def judge(message: dict, on_queued=None) -> dict | None:
    """Grade in the warm grader (``{"label", "sources"}`` or ``{"file"}``, with ``only``,
    ``questions``, ``lesson``): its reply, or None when the caller should grade itself."""
    if not enabled():
        return None
    try:  # the caller's language: the grader's own folder and environment are not the kernel's
        return _ask({"kind": "judge", "lang": i18n.language(), **message}, on_queued=on_queued)
    except (Unavailable, Interrupted) as e:
        _note(str(e))
        return None


def start_ahead() -> bool:
    """Start the grader in the background (no waiting); False when it is not to be used."""
    if not enabled():
        return False

    def start() -> None:
        with contextlib.suppress(Unavailable, OSError):
            connect().close()

    threading.Thread(target=start, name="warm-grader-start", daemon=True).start()
    return True


def control(kind: str) -> dict | None:
    """``status`` or ``stop`` of the running grader (None when none is running)."""
    try:
        sock = connect(start=False)
    except Unavailable:
        return None
    try:
        runtime.send(sock, {"kind": kind})
        return runtime.receive(sock)[0]
    except (OSError, ValueError):
        return None
    finally:
        sock.close()

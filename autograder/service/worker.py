"""One warm judge process of the grader (the supervisor, :mod:`.daemon`, starts it).

It loads what a judge needs once (torch, the checks, the reference's expected values) and starts
its sandbox (:func:`autograder.sandbox.host.pool.default_server`, as ``check`` always did), then
serves one request at a time:

- ``cli``: ``python -m autograder ARGS`` exactly as the caller's own process would run it: the
  same arguments, working folder and environment, with the caller's stdin, stdout and stderr
  (their descriptors came over the socket) and their encodings; the reply is the exit status.
- ``judge``: a kernel's ``check()`` or ``progress``: the sources (or a file), graded by
  :func:`autograder.core.judge.judge_code`; the reply is the results as data.

Learner code never runs here: each submission runs in a fresh learner process forked from the
sandbox's server, and the sandbox is reset (every process killed, its tmpfs emptied) before the
next one, as for ``check``. After each request the sandbox is restarted if the learner's code
killed it, so that the next request finds it warm.
"""

from __future__ import annotations

import _thread
import contextlib
import io
import os
import select
import socket
import sys
import threading
import traceback

from autograder.service import client, cpu_log, runtime


def _stream(fd: int, spec: dict) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.FileIO(fd, "w", closefd=False),
        encoding=spec.get("encoding") or "utf-8",
        errors=spec.get("errors") or "strict",
        line_buffering=bool(spec.get("line_buffering")),
        write_through=True,
    )


def run_cli(message: dict, fds: list[int]) -> int:
    """``cli.main(argv)`` as the caller's own process would run it; its exit status."""
    from autograder.cli import main
    from autograder.drill import cli as drill_cli
    from autograder.sandbox.host import bwrap, pool

    sys.stdout.flush()
    sys.stderr.flush()
    saved_fds = [os.dup(n) for n in (0, 1, 2)]
    saved = (sys.stdout, sys.stderr, os.getcwd(), dict(os.environ), list(sys.argv))
    try:
        for n, fd in enumerate(fds[:3]):
            os.dup2(fd, n)
        sys.stdout = _stream(1, message.get("stdout", {}))
        sys.stderr = _stream(2, message.get("stderr", {}))
        os.chdir(message["cwd"])
        os.environ.clear()
        os.environ.update(message["env"])
        sys.argv = [message.get("argv0", "autograder"), *message["argv"]]
        server = pool.started_default()
        if server is not None and not server.strong:  # the direct path says so in each process
            bwrap.note_weak_again()
        if message["argv"][:1] == ["grade"]:
            # grade's first notebook takes the warm sandbox, reset before it is handed on (as
            # grade's kept sandboxes are between notebooks); it is this worker's own again after
            # the class if it reset clean at the end of its last notebook (else restarted)
            pool.lend_default()
        drill_cli.LAUNCHED = message.get("launched")  # a drill's timer: the caller's time
        try:
            status = main(list(message["argv"]))
        except KeyboardInterrupt:
            status = 130
        except BrokenPipeError:  # `check ... | head`: the reader has what it wanted (a trial
            status = 0  # saw this worker's traceback); the rest is not written
            devnull = os.open(os.devnull, os.O_WRONLY)  # what is left in the buffer goes there
            os.dup2(devnull, 1)
            os.close(devnull)
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                status = e.code or 0
            else:
                print(e.code, file=sys.stderr)
                status = 1
        except Exception:
            traceback.print_exc()
            status = 1
        return int(status)
    finally:
        drill_cli.LAUNCHED = None
        pool.reclaim_default()  # lent to this request only, whatever it did
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr, cwd, env, sys.argv = saved
        for n, fd in enumerate(saved_fds):
            os.dup2(fd, n)
            os.close(fd)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)


def run_judge(message: dict) -> dict:
    """A kernel's ``check()`` (sources) or ``progress`` (a file): the results, as data."""
    from autograder import i18n

    with i18n.use(i18n.normalise(message.get("lang"))):  # the kernel's language, not ours
        return _judge(message)


def _judge(message: dict) -> dict:
    from autograder.core.extract import ExtractError, from_file, from_sources
    from autograder.core.judge import NothingToGrade, judge_code

    try:
        if "file" in message:
            code = from_file(message["file"], message.get("label"))
        else:
            code = from_sources(message["label"], [tuple(s) for s in message["sources"]])
        results = judge_code(
            code,
            message.get("only"),
            questions=bool(message.get("questions")),
            lesson=message.get("lesson"),
        )
    except ExtractError as e:
        return {"extract_error": str(e)}
    except NothingToGrade as e:
        return {"nothing": str(e)}
    return {"results": [{**r.to_json(), "attempted": r.attempted} for r in results]}


_interrupt = threading.Lock()


HANG_UP_GRACE_S = 10.0  # after its caller left, how long a request may take to stop


def _watch(conn: socket.socket, done: threading.Event) -> None:
    """Stop the request (KeyboardInterrupt in the main thread) when its caller hangs up. A judge
    busy in one long native call (torch on a huge tensor) sees no KeyboardInterrupt until it
    returns: if the request has not stopped after ``HANG_UP_GRACE_S``, this worker exits (its
    sandboxes die with it), and the supervisor starts another, rather than keep a core busy
    for no one (red team round 14 left a worker spinning for 18 minutes)."""
    while not done.is_set():
        readable, _, _ = select.select([conn], [], [], 0.2)
        if readable and not done.is_set():
            try:
                gone = not conn.recv(1, socket.MSG_PEEK)
            except OSError:
                gone = True
            if gone:
                with _interrupt:
                    if not done.is_set():
                        _thread.interrupt_main()
                if not done.wait(HANG_UP_GRACE_S):
                    print("worker: the caller left and the request did not stop", file=sys.stderr)
                    os._exit(3)
                return


FIRST_REQUEST_S = 0.5  # after "ready", how long a request may take to come before warming up


def _warm_up_steps() -> list:
    """What a first ``grade`` would load (see ``warm_up_steps``), done between requests one step
    at a time, so that a request waits at most for the step under way."""
    try:
        import autograder.grade.grading  # noqa: F401
        from autograder.grade.outputs.write import warm_up_steps
    except Exception:  # it is only a warm-up: grade says what is wrong
        return []
    return warm_up_steps()


def serve(control: socket.socket) -> None:
    from autograder.sandbox.host.pool import default_server  # imports no torch

    cpu_log.enter_cgroup(f"service-{os.getpid()}")  # measuring only: AUTOGRADER_CPU_CGROUP
    # The sandbox first: its server loads torch while this process imports the judge (on two
    # cores at once), where one after the other made a cold grader's first check wait for both.
    default_server(wait=False)
    from autograder.core.loading import loading

    with loading():  # torch, and every lesson's checks
        import autograder.check.cli  # noqa: F401
        import autograder.check.report  # noqa: F401
        import autograder.cli  # noqa: F401  (what a request needs, loaded before it comes)
        import autograder.drill.cli  # noqa: F401
        import autograder.grade.cli  # noqa: F401
        import autograder.progress  # noqa: F401
        from autograder.core.registry import all_exercises

        client.INSIDE = True  # a request run here never asks the service again
        all_exercises()
    server = default_server()
    server.wait_ready(300)
    runtime.send(control, {"state": "ready"})
    idle = _warm_up_steps()
    # A check that started the grader is waiting in the supervisor's queue, sent on as soon as
    # it hears "ready": give it a moment to arrive before the first step, which it would wait for
    # (a step takes up to a second).
    first = FIRST_REQUEST_S
    while True:
        while idle and not select.select([control], [], [], first)[0]:
            first = 0
            with contextlib.suppress(Exception):
                idle.pop(0)()  # no request waiting: load what a first `grade` would
        first = 0
        try:
            message, fds = runtime.receive(control, with_fds=True)
        except (OSError, ValueError):
            return  # the supervisor is gone
        conn = socket.socket(fileno=fds[0])
        done = threading.Event()
        accounted = cpu_log.Request(conn, message).begin()
        try:
            runtime.send(conn, {"started": True})
            threading.Thread(target=_watch, args=(conn, done), daemon=True).start()
            if message.get("kind") == "cli":
                reply = {"status": run_cli(message, fds[1:])}
            else:
                reply = run_judge(message)
            done.set()
            runtime.send(conn, reply)
        except (OSError, KeyboardInterrupt):
            pass  # the caller went away (Ctrl-C, a kernel interrupted): the request stops
        except Exception:
            traceback.print_exc()
        finally:
            done.set()
            conn.close()
            for fd in fds[1:]:
                os.close(fd)
        try:
            with _interrupt:
                pass  # an interrupt of this request, if one was sent, has been delivered
            default_server(wait=False)  # restarted now if the learner's code killed it
        except (Exception, KeyboardInterrupt):
            pass
        accounted.end()
        runtime.send(control, {"state": "done"})


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))

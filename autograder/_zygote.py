"""A warm process that forks one sandbox per submission.

Started once per judging process (``python -c "...serve(fd)"``), it imports torch and
:mod:`autograder._worker` once; each sandbox is then a fork of it, ready in milliseconds. It never
runs learner code itself. The judge talks to it over a Unix socket: it sends one connected socket
per sandbox (``socket.send_fds``); the zygote answers ``S`` + the new pid, and ``X`` + pid + wait
status when a sandbox ends, so the judge can say *why* a sandbox stopped. It exits when the judge
closes the socket.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import socket
import struct
import sys

RECORD = struct.Struct("!cii")  # kind (S = started, X = exited), pid, wait status


def _reap(ctrl: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        ctrl.sendall(RECORD.pack(b"X", pid, status))


def serve(fd: int) -> None:
    from multiprocessing.connection import Connection

    from autograder import _worker  # torch and the reference load here, once

    ctrl = socket.socket(fileno=fd)
    while True:
        ready, _, _ = select.select([ctrl], [], [], 0.1)
        _reap(ctrl)
        if not ready:
            continue
        try:
            msg, fds, _, _ = socket.recv_fds(ctrl, 16, 1)
        except OSError:
            return
        if not msg:  # the judge has gone: so do we
            return
        pid = os.fork()
        if pid == 0:  # the sandbox
            ctrl.close()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            code = 0
            try:
                conn = Connection(fds[0])
                _worker.main(conn, pickle.loads(conn.recv_bytes()))
            except BaseException:
                import traceback

                traceback.print_exc()  # into the sandbox's own output file
                code = 70
            finally:
                os._exit(code)
        os.close(fds[0])
        ctrl.sendall(RECORD.pack(b"S", pid, 0))


if __name__ == "__main__":
    serve(int(sys.argv[1]))

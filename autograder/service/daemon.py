"""The warm grader's supervisor: ``python -m autograder.service.daemon`` (the client starts it).

It detaches (a second fork: its own session, reparented, nobody's child to reap), takes the lock
(a second supervisor for the same checkout exits at once), binds the socket 0600 in the private
runtime folder, and loops, single-threaded and without torch:

- a connection from another uid is closed unread (``SO_PEERCRED``);
- a request whose fingerprint is not ours gets ``{"stale": true}``: the course's code or torch
  changed, so this supervisor lets the socket and the lock go at once (the client starts a new
  one) and exits when its workers have finished what they are doing;
- ``status`` and ``stop`` it answers itself; every other request goes to an idle worker
  (:mod:`.worker`) with the caller's descriptors, and waits in line when none is idle (the client
  hears ``{"queued": true}``, and a new worker starts, up to one per core);
- after ``AUTOGRADER_DAEMON_IDLE`` seconds (default 1800) without a request it exits, and its
  workers (and their sandboxes) with it.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

from autograder.i18n import N_
from autograder.service import runtime

IDLE_S = float(os.environ.get("AUTOGRADER_DAEMON_IDLE", 1800))
WORKERS = int(os.environ.get("AUTOGRADER_DAEMON_WORKERS", 0)) or min(os.cpu_count() or 1, 4)
READ_TIMEOUT_S = 5.0  # a client sends its request as soon as it connects


class Worker:
    def __init__(self, log):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock = ours
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autograder.service.worker", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        theirs.close()
        self.ready = False
        self.busy = False

    def give(self, job) -> None:
        message, conn, fds = job
        runtime.send(self.sock, message, [conn.fileno(), *fds])
        self.busy = True

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class Supervisor:
    def __init__(self, where: runtime.Paths, fp: str):
        self.where, self.fingerprint = where, fp
        self.started = time.time()  # for status: since when it runs
        self.lock = open(where.lock, "a")  # noqa: SIM115 (held for the supervisor's life)
        fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError: one is running
        with contextlib.suppress(FileNotFoundError):
            os.unlink(where.socket)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self.listener.bind(str(where.socket))
        finally:
            os.umask(old)
        os.chmod(where.socket, 0o600)
        self.inode = os.stat(where.socket).st_ino  # ours to remove (a successor binds its own)
        self.listener.listen(64)
        self.log = open(where.log, "a")  # noqa: SIM115
        self.workers: list[Worker] = []
        self.waiting: collections.deque = collections.deque()
        self.last = time.monotonic()  # the last request (status and stop are none) or answer
        self.stepping_down = False
        self.failed_starts = 0  # workers that died before they were ready, in a row
        self.workers.append(Worker(self.log))  # warm ahead: the first check need not wait long

    def step_down(self) -> None:
        """Let the socket and the lock go now; exit once the workers are done."""
        if self.stepping_down:
            return
        self.stepping_down = True
        with contextlib.suppress(OSError):
            if os.stat(self.where.socket).st_ino == self.inode:
                os.unlink(self.where.socket)
        self.listener.close()
        self.lock.close()

    def serve(self) -> None:
        while True:
            quiet = not self.waiting and not any(w.busy for w in self.workers)
            if quiet and self.stepping_down:
                break
            if quiet and time.monotonic() - self.last > IDLE_S:
                self.step_down()
                continue
            readable = [w.sock for w in self.workers]
            if not self.stepping_down:
                readable.append(self.listener)
            ready, _writable, _errors = select.select(readable, [], [], 1.0)
            for sock in ready:
                if sock is self.listener:
                    self._accept()
                else:
                    self._hear(next(w for w in self.workers if w.sock is sock))
            self._dispatch()
        for worker in self.workers:
            worker.stop()
        for worker in self.workers:
            try:
                worker.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.proc.kill()

    def _accept(self) -> None:
        try:
            conn, _address = self.listener.accept()
        except OSError:
            return
        try:
            if runtime.peer_uid(conn) != os.getuid():  # never another user's grader
                conn.close()
                return
            conn.settimeout(READ_TIMEOUT_S)
            message, fds = runtime.receive(conn, with_fds=True)
            conn.settimeout(None)
        except (OSError, ValueError):
            conn.close()
            return
        kind = message.get("kind")
        if kind in ("status", "stop"):  # asking whether it runs does not keep it running
            with contextlib.suppress(OSError):
                runtime.send(conn, self._status())
            for fd in fds:
                os.close(fd)
            conn.close()
            if kind == "stop":
                self.step_down()
            return
        self.last = time.monotonic()
        if message.get("fingerprint") != self.fingerprint:
            self.step_down()  # first: the client that hears "stale" starts a new one at once
            with contextlib.suppress(OSError):
                runtime.send(conn, {"stale": True})
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        self.waiting.append((message, conn, fds))

    def _status(self) -> dict:
        return {
            "pid": os.getpid(),
            "fingerprint": self.fingerprint,
            "workers": len(self.workers),
            "ready": sum(w.ready for w in self.workers),
            "busy": sum(w.busy for w in self.workers),
            "idle_timeout_s": IDLE_S,
            "started": self.started,
            "idle_s": round(time.monotonic() - self.last, 1),
            "socket": str(self.where.socket),
        }

    def _hear(self, worker: Worker) -> None:
        try:
            message, _fds = runtime.receive(worker.sock)
        except (OSError, ValueError):
            worker.stop()
            worker.proc.wait()
            self.workers.remove(worker)
            self.failed_starts += not worker.ready
            return
        if message.get("state") == "ready":
            worker.ready = True
            self.failed_starts = 0
        elif message.get("state") == "done":
            worker.busy = False
            self.last = time.monotonic()

    def _dispatch(self) -> None:
        if self.failed_starts >= 3:  # the workers die as they start (broken code?): give up
            while self.waiting:
                _message, conn, fds = self.waiting.popleft()
                with contextlib.suppress(OSError):
                    why = N_("its workers stop as they start; see {log}")  # the client's words
                    runtime.send(conn, {"unavailable": why, "log": str(self.where.log)})
                conn.close()
                for fd in fds:
                    os.close(fd)
            self.step_down()
            return
        while self.waiting:
            idle = [w for w in self.workers if w.ready and not w.busy]
            if not idle:
                break
            job = self.waiting.popleft()
            message, conn, fds = job
            try:
                idle[0].give(job)
            except OSError:  # the worker died: the next loop removes it
                self.waiting.appendleft(job)
                break
            finally:
                if job not in self.waiting:
                    conn.close()
                    for fd in fds:
                        os.close(fd)
        if not self.waiting:
            return
        for message, conn, _fds in self.waiting:  # told once, so that a kernel can say "starting"
            if not message.get("told"):
                message["told"] = True
                with contextlib.suppress(OSError):
                    runtime.send(conn, {"queued": True})
        starting = [w for w in self.workers if not w.ready]
        if not starting and len(self.workers) < WORKERS and not self.stepping_down:
            self.workers.append(Worker(self.log))


def main() -> None:
    if len(sys.argv) > 1:  # the socket the client will connect to, in the folder it checked
        sock = Path(sys.argv[1])
        where = runtime.Paths(sock, sock.with_suffix(".lock"), sock.with_suffix(".log"))
    else:
        where = runtime.paths(runtime.runtime_dir())
    fp = runtime.fingerprint()
    if os.fork():  # the client reaps this one; the supervisor is reparented
        os._exit(0)
    os.setsid()
    os.chdir("/")
    try:
        supervisor = Supervisor(where, fp)
    except BlockingIOError:  # another supervisor of this checkout holds the lock
        return
    print(f"{time.strftime('%F %T')} supervisor {os.getpid()} fingerprint {fp}", file=sys.stderr)
    supervisor.serve()


if __name__ == "__main__":
    main()

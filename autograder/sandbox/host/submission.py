"""The judge's side of one learner's code: a ``Submission``, callable from the checks.

Each submission is one learner process (forked from a sandbox's warm server) that runs the
learner's definitions once; each exercise is one process forked from that one, so an exercise's
limits and crashes are its own (:meth:`Submission.begin`). The limits count the exercise
process's own CPU time (``RLIMIT_CPU``); a generous wall-clock backstop (:func:`wall_backstop`)
stops code that sleeps or blocks. A call that raises, runs past a limit, dies, or uses what the
exercise forbids raises a :class:`~autograder.sandbox.host.replies.LearnerProblem`.

Requests: :class:`autograder.sandbox.protocol.Request` (``apply``: a helper of ``inside.remote``).
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import time
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from autograder.i18n import _
from autograder.sandbox.host.pool import current_server
from autograder.sandbox.host.remote_object import RemoteObject
from autograder.sandbox.host.replies import (
    ForbiddenUsed,
    LearnerCrashed,
    LearnerError,
    LearnerOutOfMemory,
    LearnerProblem,
    LearnerTimeout,
    NotJudged,
    NotWrittenYet,
    SandboxDidNotStart,
    Tampered,
    Trace,
    devices_of,
    ended,
    from_plain,
    helper_reply,
    machine_busy,
    trace_of,
)
from autograder.sandbox.host.server import Server
from autograder.sandbox.host.timeouts import kept_waiting, load_timeout, wall_backstop, wall_timeout
from autograder.sandbox.protocol import (
    MAX_FRAME,
    PEAK_FAILURES,
    PEAK_UNAVAILABLE,
    PEAK_UNMEASURED,
    Begin,
    Channel,
    ChannelClosed,
    ChannelTimeout,
    ErrorKind,
    ProtocolError,
    Request,
    Setup,
    first_few,
    parse,
)

MEMORY_LIMIT = 3 * 2**30  # bytes the learner's code may allocate on top of torch itself
LOAD_TIMEOUT = 30.0  # CPU seconds to run the learner's definitions
LOADS = 2.0  # every run of them in one submission together: this many times LOAD_TIMEOUT
GRACE = 5.0  # seconds the judge waits beyond the sandbox's own backstop before it kills it
MAX_EVENTS = 1000
# Wall-clock seconds the judge may wait on one submission (its definitions loading, its replies)
# while it uses under a quarter of that in CPU time, on a machine that is not busy: past it, the
# rest is not judged (each item says why); code that computes is stopped by CPU limits only.
WALL_BUDGET = 120.0
# A machine is busy for it only where its own processes beyond those judged used a CPU less than
OWN_LOAD = 0.1  # this share of the time waited (k + 1 that make k cores busy use 0.2 k or more)
MEASURE_TRIES = 5  # a measured call whose measurement is inconclusive (a busy machine) is re-run
NOT_TAKEN = "the process that runs your code stopped taking work, again after it was started anew"


class Submission:
    """A learner's code, loaded in a sandbox, callable from the judge."""

    def __init__(
        self,
        cells: list[tuple[str, str]],
        forbid: dict[str, list[str]],
        *,
        memory_limit: int = MEMORY_LIMIT,
        load_timeout: float = LOAD_TIMEOUT,
        server: Server | None = None,
    ):
        self._setup = Setup(
            list(cells), dict(forbid), memory_limit, load_timeout, wall_backstop(load_timeout)
        )
        self._server = server
        self._chan: Channel | None = None
        self._ex: Channel | None = None
        self.exercise = None
        self.last_trace = Trace()
        self.waited = 0.0  # seconds the judge waited on this submission's processes
        self.cpu = 0.0  # CPU seconds its exercise processes reported using, and its loading
        self.used = 0.0  # CPU seconds all its sandbox's processes used (the judge's own count)
        self._mark: tuple = (None, None)  # (its sandbox, that sandbox's count) when last tallied
        self._restarts = 0  # learner processes found gone while idle (started again once)
        self._load_left = LOADS * load_timeout  # CPU seconds left for running the definitions
        self._start()

    # -- the learner process ---------------------------------------------------------------------
    def _start(self, retry: bool = True) -> None:
        """A learner process that runs the definitions; every run of them in this submission
        (after a time limit hit, round 32's cut channel) shares ``LOADS`` times their limit."""
        limit = min(self._setup.load_cpu_limit, self._load_left)
        again = limit < self._setup.load_cpu_limit  # what is said where it runs out
        said = LOADS * self._setup.load_cpu_limit if again else limit
        if limit < 1.0:
            raise load_timeout(ErrorKind.CPU_TIME, said, again)
        setup = replace(self._setup, load_cpu_limit=limit)
        server = self._live_server = self._server or current_server()
        why = "it did not set up the process for your code"
        try:
            self._pid, self._chan = server.spawn(setup.cells)
            self._chan.send(pickle.dumps(setup))
            locked = parse(self._chan.receive(time.monotonic() + self._setup.load_wall_limit))
            ready = locked["type"] == "locked"
        except (RuntimeError, OSError, ChannelClosed, ChannelTimeout, ProtocolError) as e:
            ready, why = False, str(e) or why
        if not ready:  # before any learner code ran: the sandbox's fault, not the learner's
            self._stop()
            if retry and self._server is None:  # discarded: this submission runs in a new one
                server.close()
                return self._start(retry=False)
            raise SandboxDidNotStart(f"the grader's sandbox did not start ({why}); not your code")
        loading, started = self._tally(), time.monotonic()
        deadline = started + self._setup.load_wall_limit
        try:
            with self._waiting(), self._charged(loading):
                message = parse(self._chan.receive(deadline, MAX_FRAME))
            if message["type"] != "loaded":
                raise ProtocolError("not a loaded message")
        except ChannelTimeout:  # and no more runs of them (red team round 33 waited in each)
            self._stop()
            self._load_left = 0.0
            raise load_timeout(ErrorKind.WALL_CLOCK, self._setup.load_wall_limit) from None
        except ChannelClosed:  # the learner process ended while loading
            self._chan.close()
            self._chan = None
            status = self._live_server.exit_status(self._pid, timeout=5.0)
            if status is not None and os.WIFSIGNALED(status):
                if os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
                    raise load_timeout(ErrorKind.CPU_TIME, said, again) from None
            raise ended(status) from None
        except ProtocolError as e:
            self._stop()
            raise Tampered(f"the sandbox sent something that is not a reply ({e})") from None
        self.cpu += self._tally() - loading  # running its definitions: computing
        self.defined = frozenset(message["defined"])
        self.problems = list(message["problems"])

    @contextmanager
    def _charged(self, before: float):
        """Take what the sandbox used in the block (a run of the definitions) from the budget."""
        try:
            yield
        finally:  # what the sandbox used since ``before``
            self._load_left -= max(0.0, self._tally() - before)

    @contextmanager
    def _waiting(self):
        """Count the time spent in the block as time waited on the submission."""
        started = time.monotonic()
        try:
            yield
        finally:
            self.waited += time.monotonic() - started

    def _within_budget(self) -> None:
        """:class:`LearnerTimeout` when the submission has waited past its :data:`WALL_BUDGET` on
        little CPU (under a quarter of the time waited), on a machine not busy with others' work."""
        used = self._tally()  # at each exercise: a sandbox discarded later loses little of it
        if self.waited <= WALL_BUDGET or self.cpu >= 0.25 * self.waited:
            return
        if machine_busy() and used - self.cpu < OWN_LOAD * self.waited:
            return  # others' work slowed it, not processes of its own
        raise kept_waiting(self.waited, self.cpu, WALL_BUDGET)

    def _tally(self) -> float:
        """:attr:`used`, brought up to date: what the sandbox's processes used since last time."""
        server, (then, before) = self._live_server, self._mark
        now = server.cpu_seconds()
        if then is server and None not in (now, before):
            self.used += max(0.0, now - before)
        self._mark = (server, now)
        return self.used

    def _stop(self) -> None:
        """End the learner process, and wait until its sandbox has cleaned up after it (every
        process it left killed, the tmpfs emptied) before anything else runs there."""
        if self._ex is not None:
            self._ex.close()
            self._ex = None
        if self._chan is not None:
            self._chan.close()
            self._chan = None
            self._live_server.kill(self._pid)
            if self._live_server.exit_status(self._pid, timeout=30.0) is None:
                self._live_server.close()  # it does not answer: a fresh sandbox next time

    close = _stop

    def __enter__(self) -> Submission:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- one exercise process per exercise -------------------------------------------------------
    def begin(self, exercise) -> None:
        """Judge ``exercise`` next: a fresh process under its limits and forbidden calls.

        A learner process that does not take it (gone while idle) is started again, once per
        submission: the second time, this exercise and every later one fail as the learner's
        crash (red team round 32 cut its own channel as it loaded, and each restart ran its
        definitions again: ~1000 times per exercise)."""
        self._end_exercise()
        self._within_budget()
        self.exercise = exercise
        self._cpu_limit = float(exercise.time_limit)
        wall = wall_backstop(self._cpu_limit)
        begin = pickle.dumps(Begin.of(exercise, self._cpu_limit, wall))
        while True:
            if self._restarts > 1:
                raise LearnerCrashed(NOT_TAKEN)
            if self._chan is None:
                self._start()
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self._chan.send(begin, fds=[theirs.fileno()])
                break
            except OSError:
                ours.close()
                self._stop()
                self._restarts += 1
            finally:
                theirs.close()
        self._ex = Channel(ours)
        self._ex_deadline = time.monotonic() + wall + GRACE
        self._ex_used = self._tally()  # the sandbox's CPU so far, as the judge reads it
        self._forbidden: list[str] = []
        self._refused: list[str] = []
        self._tampered: list[str] = []
        self._events = 0

    def _exit_report(self, timeout: float) -> dict | None:
        """The learner process's word on how the exercise process ended."""
        if self._chan is None:
            return None
        try:
            with self._waiting():
                message = parse(self._chan.receive(time.monotonic() + timeout, 4096))
        except (ChannelTimeout, ChannelClosed, ProtocolError):
            self._stop()  # it does not answer as it should: a fresh one next time
            return None
        if message["type"] != "exited":
            self._stop()
            return None
        # The learner process's figure, never more than the judge's own reading of the sandbox's
        # CPU since the exercise began (red team round 15: cpu=1e300 turned off the wait budget
        # and made a sleeping exercise look busy, so each wait was retried), nor than its limit.
        measured = self._tally() - self._ex_used
        message["cpu"] = min(max(0.0, message["cpu"]), measured + 0.1, self._cpu_limit + 1.0)
        self.cpu += message["cpu"]
        if not self._live_server.trim(self._pid):  # what the exercise started ends with it
            self._stop()
        return message

    def _end_exercise(self, wait: bool = True) -> None:
        """Hang up on the exercise process; ``wait`` for its end, or end the learner process."""
        if self._ex is None:
            return
        if wait:
            self._ex.close()
            self._ex = None
            self._exit_report(GRACE)
        else:
            self._stop()

    def _exercise_ended(self) -> LearnerProblem:
        """The exercise process is gone: why, in the learner's terms."""
        self._ex.close()
        self._ex = None
        remaining = max(0.0, self._ex_deadline - time.monotonic())
        report = self._exit_report(remaining + GRACE)
        if report is None:
            return LearnerCrashed("the sandbox stopped")
        status, cpu = report["status"], report["cpu"]
        if report["wall_limit_hit"]:
            return wall_timeout(self._cpu_limit, cpu)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= self._cpu_limit - 0.05):
                said = _(
                    "your code used more than {limit:g} s of CPU time, this exercise's limit (an "
                    "endless loop, or a loop over every element that should be a tensor operation?)"
                )
                return LearnerTimeout(said.format(limit=self._cpu_limit), ErrorKind.CPU_TIME, cpu)
        return ended(status)

    def defines(self, name: str) -> bool:
        return name in self.defined

    def cells(self) -> list[tuple[str, str]]:
        """The learner's code, cell by cell, as it was loaded: (label, source) pairs."""
        return list(self._setup.cells)

    def _request(self, req: Request) -> Any:
        if self._ex is None:
            raise LearnerCrashed("the sandbox had already stopped")
        if self._forbidden:
            raise ForbiddenUsed(sorted(set(self._forbidden)))
        devices, self.last_request = devices_of(req.args, req.kwargs), req  # (a time limit's)
        try:
            self._ex.send(pickle.dumps(req))  # plain pickle: tensors go by value
        except OSError:
            raise self._exercise_ended() from None
        while True:
            try:
                with self._waiting():
                    message = parse(self._ex.receive(self._ex_deadline))
            except ChannelClosed:
                raise self._exercise_ended() from None
            except ChannelTimeout:
                self._end_exercise(wait=False)
                raise wall_timeout(self._cpu_limit) from None
            except ProtocolError as e:
                self._end_exercise(wait=False)
                raise Tampered(f"the sandbox sent something that is not a reply ({e})") from None
            if message["type"] != "event":
                break
            self._events += 1
            kind, what = message["kind"], message["what"]
            {"forbidden": self._forbidden, "refused": self._refused}.get(
                kind, self._tampered
            ).append(what)
            if self._events > MAX_EVENTS:
                self._end_exercise(wait=False)
                raise Tampered("the sandbox sent too many messages")
        if self._forbidden:
            raise ForbiddenUsed(sorted(set(self._forbidden)))
        if self._tampered:
            raise Tampered(self._tampered[0])
        if self._refused:  # reported even if the learner's code caught the exception
            refused = first_few(list(dict.fromkeys(self._refused)), "; ")  # once each
            raise Tampered(f"the grader's sandbox does not allow {refused}")
        if message["type"] == "error":
            kind, text = message["kind"], message["message"]
            if kind == "MemoryError" or "can't allocate memory" in text:
                raise LearnerOutOfMemory(text.splitlines()[0][:200] if text else kind)
            if kind == "NotImplementedError" and message["raised_by_learner"]:
                raise NotWrittenYet(text, message["traceback"])
            if kind in ("SystemExit", "KeyboardInterrupt"):
                said = _(
                    "your code raised {kind} to stop the grader instead of returning a value; "
                    "don't call exit() or sys.exit() in your solution"
                )
                raise LearnerCrashed(said.format(kind=kind))
            raise LearnerError(kind, text, message["traceback"])
        if message["type"] != "reply":
            self._end_exercise(wait=False)
            raise Tampered("the sandbox sent something that is not a reply")
        try:
            if message["trace"] is not None:
                self.last_trace = trace_of(message["trace"])
            return helper_reply(req.helper, from_plain(message["value"], devices))
        except ProtocolError as e:
            raise Tampered(f"the sandbox sent something that is not a reply ({e})") from None

    def call(
        self, name: str, *args, watch: bool = False, check_devices: bool = True, **kwargs
    ) -> Any:
        """Call the learner's function ``name`` in the sandbox and return its value."""
        return self._request(
            Request("call", name, args=args, kwargs=kwargs, watch=watch, devices=check_devices)
        )

    def get(self, name: str) -> Any:
        """The value of the learner's global ``name`` (None if it is not defined)."""
        return self._request(Request("get", name))

    def peak_memory(self, target: str | int, *args, **kwargs) -> tuple[Any, int | None]:
        """``target(*args, **kwargs)``'s value, and by how many bytes the call raised the peak
        resident memory of the learner's processes (None without /proc), as the sandbox's server
        measures it from outside them (inside/zygote.py, PeakMemory; SECURITY.md). A process it
        cannot measure fails the call (:class:`Tampered`, reasons in ``PEAK_FAILURES``); one the
        machine kept it from measuring in every try is not judged (:class:`NotJudged`)."""
        server = self._live_server
        for attempt in range(MEASURE_TRIES):  # inconclusive (the server missed looks): again
            self._request(Request("ready"))
            self._measure_failed(server.measure(b"peak"))
            value = self._request(Request("apply", target, args=args, kwargs=kwargs, helper="call"))
            grew = server.measure(b"high")
            if grew != PEAK_UNMEASURED or attempt == MEASURE_TRIES - 1:
                break
        self._measure_failed(grew)
        return value, None if grew == PEAK_UNAVAILABLE else grew * 1024

    def _measure_failed(self, answer: int | None) -> None:
        if answer is not None and (answer >= 0 or answer == PEAK_UNAVAILABLE):
            return
        self._end_exercise(wait=False)
        why = PEAK_FAILURES.get(answer, "the sandbox did not answer")
        # PEAK_UNMEASURED: the machine's doing, in every try: judged again, or said
        problem = NotJudged if answer == PEAK_UNMEASURED else Tampered
        raise problem(f"the grader could not measure the memory this call uses: {why}")

    def new(self, name: str, *args, **kwargs) -> RemoteObject:
        """Construct the learner's class ``name`` in the sandbox."""
        handle = self._request(Request("new", name, args=args, kwargs=kwargs))
        if not isinstance(handle, int):
            raise Tampered("the sandbox sent something that is not a reply")
        return RemoteObject(self, handle, name)

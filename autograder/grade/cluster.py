"""Grade a class on an existing Dask distributed cluster: ``grade ... --scheduler ADDRESS``.

Each submission (one student's one assignment) is one task:
:func:`autograder.grade.grading.grade_one`,
run on a worker, in that worker's own sandbox (one per worker thread, kept from one submission to
the next as in a local run, and ended when the worker shuts down). The scheduler gives a task that
raised to another attempt (``retries``) and the tasks of a worker that died to the others, so a
lost worker loses no submission; a submission whose every try kills its worker (``KilledWorker``)
is that student's unreadable row, saying so, never the class's failure. A run whose every
worker leaves for good (none back within ``WAIT_FOR_WORKERS`` seconds) stops with an error that
says so, writing nothing, instead of waiting forever.

**The submissions travel with their tasks; no shared filesystem is needed.** The client (the
instructor's machine) reads each assignment folder under the rules of a local run — no symbolic
link followed, nothing larger than the extract step's cap read, nothing written — and ships what
``grade_one`` reads there: the bytes of the notebook it grades and of ``timestamp.txt``, the names
of the other notebooks, and, for an entry that cannot be read (a link, something that is not a
regular file, a file over the cap), only what it is, never its content. The worker lays that out
in a private temporary folder and grades it there exactly as a local run grades the original, so
the table is the same. Workers never see ``SUBMISSIONS_DIR``. One task per worker
thread is in flight at a time, so the client and the scheduler hold a few notebooks, not the
class, and a worker that dies takes no classmate's task with it.

Every worker must have the course installed (``make install``: the same version as the client,
which is checked) and bubblewrap: a worker without the strong sandbox refuses to grade unless
``--allow-weak-sandbox``, as a local run does. ``dask`` is imported only here, so ``check`` and a
local ``grade`` never pay for it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from contextvars import copy_context
from dataclasses import dataclass
from pathlib import Path

from distributed import Client, as_completed, get_worker
from distributed.diagnostics.plugin import WorkerPlugin
from tqdm import tqdm

from autograder.core.extract import MAX_FILE_BYTES, Unreadable, read_bytes
from autograder.grade import COURSE, RELEASE
from autograder.grade.grading import (
    TIMESTAMP,
    SubmissionFolder,
    find_notebook,
    folder_entries,
    grade_one,
)
from autograder.grade.results import Graded, GradeError, listed
from autograder.i18n import _
from autograder.sandbox.host.bwrap import strong_isolation_available
from autograder.sandbox.host.pool import close_kept
from autograder.sandbox.protocol import one_line

RETRIES = 2  # a task that raised gets this many more attempts (a dead worker's are reassigned)
# Tasks in flight per worker thread: one. Dask counts a worker's death against every task the
# worker holds, so a classmate queued on the worker behind a submission that kills it was lost
# with it (its row unreadable) when more were submitted ahead; a task takes seconds, the next
# one's submission milliseconds.
IN_FLIGHT = 1
CONNECT_TIMEOUT = 30  # seconds to reach the scheduler
# seconds to wait for a worker: a first one, and, during the run, one back once every worker left
WAIT_FOR_WORKERS = 120
WATCH_EVERY = 2  # seconds between two looks at the scheduler's workers during the run
PLUGIN = "autograder-close-sandboxes"

FILE, NAME_ONLY, LINK, BIG, DIR, OTHER = "file", "name", "link", "big", "dir", "other"
BIG_CAP = 2**40  # bytes: an over-size notebook is re-created at most this large (ext4 holds 16 TiB)


class NoStrongSandbox(RuntimeError):
    """Raised on a worker without bubblewrap, with its host name (the task fails; the run stops
    with :func:`_weak`'s message, said on the client in its caller's language)."""


def _weak(workers: str) -> str:
    return _(
        "{workers}: no strong sandbox (bubblewrap) there, so learner code would run with "
        "process isolation only, where a hostile submission can read other students' work and "
        "the course's answers, or change what the grader reads. Install it on every worker (as "
        "root: apt-get install -y bubblewrap) and restart them, or pass --allow-weak-sandbox to "
        "grade anyway, at that risk."
    ).format(workers=workers)


# -- the submission, shipped -------------------------------------------------------------------
@dataclass(frozen=True)
class Shipped:
    """An assignment folder as the client read it: ``(name, kind, bytes or size)`` per entry that
    ``grade_one`` looks at; ``kind`` says how the worker lays it out again."""

    files: tuple[tuple[str, str, bytes | int], ...]

    def unpack(self, into: Path) -> SubmissionFolder:
        """The folder, laid out in ``into`` (a private temporary folder of the worker)."""
        folder = into / "submission"
        folder.mkdir()
        for name, kind, data in self.files:
            if "/" in name or name in ("", ".", ".."):
                raise ValueError(f"not a file name: {name!r}")
            path = folder / name
            if kind in (FILE, NAME_ONLY):
                path.write_bytes(data)
            elif kind == BIG:  # sparse: its size is all the grader reads before refusing it,
                with path.open("wb") as f:  # capped at what any worker's filesystem holds (rt10)
                    f.truncate(min(data, BIG_CAP))
            elif kind == LINK:  # the grader refuses any link without following it
                path.symlink_to("link")
            elif kind == DIR:
                path.mkdir()
            else:  # a pipe, a device...: the grader refuses what is not a regular file
                os.mkfifo(path)
        return SubmissionFolder(folder)


def _read(path: Path) -> tuple[str, str, bytes | int]:
    """One entry of an assignment folder, read as :func:`autograder.core.extract.read_submission`
    reads it: without following a link, without reading more than the cap. Anything else that
    cannot be opened (a permission) is refused on the worker as something that is not a regular
    file: unreadable either way."""
    try:
        return path.name, FILE, read_bytes(path, MAX_FILE_BYTES)
    except Unreadable as e:
        kind = {"link": LINK, "folder": DIR, "big": BIG}.get(e.kind, OTHER)
        return path.name, kind, e.size if kind == BIG else b""


def ship(folder: Path, name: str) -> Shipped:
    """What a worker needs to grade the assignment ``name`` in ``folder`` (never written)."""
    chosen, _why = find_notebook(folder, name)  # which notebook grade_one will read (by name only)
    files = []
    for entry in folder_entries(folder):
        if entry.name == TIMESTAMP or (chosen is not None and entry.name == chosen.name):
            files.append(_read(folder / entry.name))
        elif entry.name.endswith(".ipynb"):
            files.append((entry.name, NAME_ONLY, b""))
    return Shipped(tuple(files))


def _shipped(task: tuple) -> tuple:
    return tuple(
        ship(a.path, task[1]) if isinstance(a, SubmissionFolder) and a.path is not None else a
        for a in task
    )


# -- on the workers ----------------------------------------------------------------------------
@functools.cache
def course_version() -> str:
    """A digest of the grader, the reference and the released notebooks: what decides a grade."""
    files = [
        *sorted((COURSE / "autograder").rglob("*.py")),
        *sorted((COURSE / "course_lib").rglob("*.py")),
        *sorted(RELEASE.glob("*/*.ipynb")),
    ]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(COURSE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _about_worker() -> dict:
    return {"course": course_version(), "strong": strong_isolation_available()}


def _grade_shipped(task: tuple, allow_weak: bool) -> Graded:
    """The task: one submission, graded on this worker."""
    if not allow_weak and not strong_isolation_available():
        raise NoStrongSandbox(socket.gethostname())
    with tempfile.TemporaryDirectory(prefix="autograder-", dir=_scratch()) as tmp:
        try:
            args = [a.unpack(Path(tmp)) if isinstance(a, Shipped) else a for a in task]
        except Exception as e:  # this student's row only, never the class (red team round 10)
            detail = str(e).replace(tmp, "")  # never a worker's path in feedback
            # kept in English (Graded.error), as grading's own reasons are
            why = f"the grader could not lay out this submission: {type(e).__name__}: {detail}"
            args = [why if isinstance(a, Shipped) else a for a in task]
        return grade_one(*args)


def _scratch() -> str | None:
    """The worker's own folder: a worker killed while grading (its nanny restarts it) cannot
    remove what it unpacked, and Dask purges the folders of dead workers when another starts;
    in /tmp each stayed for good. The system's temporary folder outside a worker."""
    try:
        return get_worker().local_directory
    except ValueError:
        return None


class CloseSandboxes(WorkerPlugin):
    """Ends a worker's kept sandboxes when the worker shuts down (a killed one takes them with
    it: they die with their parent)."""

    idempotent = True

    def teardown(self, worker) -> None:
        close_kept()


# -- on the client -----------------------------------------------------------------------------
def _connect(scheduler: str) -> Client:
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        said = _(
            "cannot reach the Dask scheduler at {scheduler} ({why}). Start one with `dask "
            "scheduler` and give the address it prints (tcp://HOST:8786)."
        )
        raise GradeError(said.format(scheduler=scheduler, why=f"{type(e).__name__}: {e}")) from e


def _check_workers(client: Client, scheduler: str, allow_weak: bool) -> int:
    """The number of worker threads, once every worker has the client's course and, unless
    ``allow_weak``, bubblewrap."""
    try:
        client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
    except TimeoutError as e:
        said = _(
            "no worker joined the scheduler at {scheduler} in {seconds} s. Start workers with "
            "`dask worker {scheduler}` on machines with the course installed."
        )
        raise GradeError(said.format(scheduler=scheduler, seconds=WAIT_FOR_WORKERS)) from e
    try:
        about = client.run(_about_worker)
    except Exception as e:  # a worker's own failure, whatever it is: say what to do
        said = _(
            "a worker cannot run the grader ({why}). Install the course on every worker (make "
            "install) and start `dask worker` from its environment."
        )
        raise GradeError(said.format(why=f"{type(e).__name__}: {e}")) from e
    other = sorted(w for w, a in about.items() if a["course"] != course_version())
    if other:
        said = _(
            "worker(s) {workers} have another version of the course than this machine, so "
            "their grades could differ. Install the same version there (git pull && make "
            "install) and restart the workers."
        )
        raise GradeError(said.format(workers=listed(other)))
    weak = sorted(w for w, a in about.items() if not a["strong"])
    if weak and not allow_weak:
        raise GradeError(_weak(_("worker(s) {workers}").format(workers=listed(weak))))
    return sum(client.nthreads().values())


def _failure(future, task: tuple) -> GradeError:
    try:
        error = future.exception()
    except Exception as e:  # cancelled: the scheduler restarted or forgot the task
        error = e
    if isinstance(error, NoStrongSandbox):
        return GradeError(_weak(_("the worker on {host}").format(host=error)))
    said = _(
        "grading {submission} failed on the cluster, after {retries} retries ({why}); nothing "
        "was written. Check the workers' logs."
    )
    why = f"{type(error).__name__}: {error}"
    return GradeError(
        said.format(submission=f"{one_line(task[0])}/{task[1]}", retries=RETRIES, why=why)
    )


def _lost(future) -> str | None:
    """Why a submission is that student's unreadable row: every worker that graded it died
    grading it (``KilledWorker``: round 11's replies took the judge past the worker's memory
    limit); None for any other failure (the class's: a cluster that cannot grade)."""
    from distributed.scheduler import KilledWorker

    try:
        error = future.exception()
    except Exception:  # cancelled: the scheduler restarted or forgot the task
        return None
    if not isinstance(error, KilledWorker):
        return None
    return _(
        "the grader's worker died while grading this submission, each time it was tried "
        "(it used more memory or time than a worker has): grade it again, and if it happens "
        "again, look at it by hand"
    )


class _Watch:
    """While tasks run, looks at the scheduler's workers every ``WATCH_EVERY`` seconds: once it
    has had none for ``WAIT_FOR_WORKERS`` seconds (every worker left: killed, its nanny closed
    for good), cancels the tasks in flight and says why in ``why``. Without it the run waited
    forever for tasks no worker would take. A worker that comes back in time starts the wait
    again; a busy worker is a worker."""

    def __init__(self, client: Client, scheduler: str):
        self.client, self.scheduler = client, scheduler
        self.futures: dict = {}  # key: the future of each task in flight (under ``lock``)
        self.lock = threading.Lock()
        self.why: str | None = None
        self._stop = threading.Event()
        context = copy_context()  # the caller's language: the thread says why in it
        self._thread = threading.Thread(
            target=context.run, args=(self._run,), name="autograder-watch", daemon=True
        )

    def __enter__(self) -> _Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def said_gone(self) -> str:
        return _(
            "every worker left the Dask scheduler at {scheduler} and none came back in "
            "{seconds} s; nothing was written. Restart the workers (`dask worker {scheduler}`) "
            "and grade again."
        ).format(scheduler=self.scheduler, seconds=WAIT_FOR_WORKERS)

    def _run(self) -> None:
        seen = time.monotonic()  # a worker was there: _check_workers waited for one
        while not self._stop.wait(WATCH_EVERY):
            try:
                if self.client.nthreads():
                    seen = time.monotonic()
                elif time.monotonic() - seen >= WAIT_FOR_WORKERS and self.why is None:
                    self.why = self.said_gone()
                if self.why is not None:  # each time: a task submitted meanwhile goes too
                    with self.lock:
                        futures = list(self.futures.values())
                    self.client.cancel(futures)
            except Exception:  # the scheduler out of reach: the client's own failure, not this
                continue


def on_cluster(scheduler: str) -> Callable[..., list[Graded]]:
    """What ``grade_class(run=...)`` calls to grade on the cluster at ``scheduler``."""
    return functools.partial(run_on_cluster, scheduler=scheduler)


def run_on_cluster(tasks: list[tuple], scheduler: str, *, allow_weak: bool) -> list[Graded]:
    """``grade_one(*task)`` for every task, on the cluster's workers, in the order of ``tasks``."""
    with _connect(scheduler) as client:
        threads = _check_workers(client, scheduler, allow_weak)
        client.register_plugin(CloseSandboxes(), name=PLUGIN)
        rows: list[Graded | None] = [None] * len(tasks)
        index = {}
        queue = iter(enumerate(tasks))
        running = as_completed(loop=client.loop)
        bar = tqdm(total=len(tasks), desc=_("grading"), unit=_("submission"))
        watch = _Watch(client, scheduler)

        def submit_next() -> None:
            for i, task in queue:
                try:
                    args = _shipped(task)
                except OSError:
                    # The folder cannot be read here (its permissions): grade_one says so, as
                    # in a local run; it fails before reading any learner code.
                    rows[i] = grade_one(*task)
                    bar.update()
                    continue
                future = client.submit(
                    _grade_shipped, args, allow_weak, retries=RETRIES, pure=False
                )
                index[future.key] = i
                with watch.lock:
                    watch.futures[future.key] = future
                running.add(future)
                return

        with bar, watch:
            for _slot in range(max(1, threads) * IN_FLIGHT):
                submit_next()
            for future in running:
                i = index.pop(future.key)
                with watch.lock:
                    watch.futures.pop(future.key, None)
                if watch.why is not None:  # no worker left to grade: the watch cancelled it
                    raise GradeError(watch.why)
                if future.status != "finished":
                    lost = _lost(future)  # the student's row, not the class's failure
                    if lost is None:
                        raise _failure(future, tasks[i])
                    rows[i] = grade_one(*tasks[i][:2], lost, *tasks[i][3:])
                    future.release()
                    bar.update()
                    submit_next()
                    continue
                rows[i] = future.result()
                future.release()
                bar.update()
                submit_next()
    return rows

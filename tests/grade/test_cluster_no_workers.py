"""A run on a Dask cluster whose every worker leaves for good (``grade --scheduler``): it waited
forever for tasks no worker would take, behind a frozen progress bar. Now, once the scheduler has
had no worker for ``WAIT_FOR_WORKERS`` seconds, the run stops with a clear error and writes
nothing; a worker that is busy longer than that is still a worker.

Each test has a ``LocalCluster`` of one worker process, one thread, whose grading of each
submission first sleeps (a plugin on the worker), so the run is still going when the test acts.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import pytest
from local_cluster import local_cluster
from test_grade import submit

from autograder import cli
from autograder.grade.grading import grade_class
from autograder.grade.outputs.table import read_table

cluster = pytest.importorskip("autograder.grade.cluster")  # needs distributed (requirements.txt)

WAIT = 3  # seconds: the guard's wait, patched small


def slow_class(root, students=("ada", "bob")):
    for student in students:
        submit(root, student, raw="{ broken")  # graded in no time once the sleep is over
    return root


@contextmanager
def one_slow_worker(sleep: float):
    """A cluster of one worker process whose grading of each submission first sleeps ``sleep``
    seconds, and a client of it."""
    from distributed import Client
    from distributed.diagnostics.plugin import WorkerPlugin

    class Slow(WorkerPlugin):
        def setup(self, worker):
            import time

            import autograder.grade.cluster as on_worker

            real = on_worker.grade_one

            def slow(*task):
                time.sleep(sleep)
                return real(*task)

            on_worker.grade_one = slow

    with (
        local_cluster(1) as local,
        Client(local, set_as_default=False) as client,
    ):
        client.register_plugin(Slow(), name="slow-grading")
        yield local, client


@pytest.mark.slow
@pytest.mark.timeout(60)  # before the guard: the run waited here forever
def test_a_run_whose_every_worker_left_stops_with_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cluster, "WAIT_FOR_WORKERS", WAIT)
    monkeypatch.setattr(cluster, "WATCH_EVERY", 0.5)
    root = slow_class(tmp_path / "submitted")
    out = tmp_path / "grades.csv"
    left: dict = {}

    def close_the_worker_when_busy():
        """Once the worker grades, its nanny is closed for good (as LocalCluster does when no
        worker of its name comes back within lost-worker-timeout): no worker is left."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not left.get("stop"):
            if any(client.processing().values()):
                local.scale(0)
                left["at"] = time.monotonic()
                return
            time.sleep(0.05)

    with one_slow_worker(sleep=600) as (local, client):
        closer = threading.Thread(target=close_the_worker_when_busy)
        closer.start()
        argv = ["grade", str(root), "--out", str(out), "--scheduler", local.scheduler_address]
        try:
            code = cli.main(argv)
        finally:
            left["stop"] = True
            closer.join()
        ended = time.monotonic()
    assert "at" in left, "the worker was never seen grading"
    assert code == 2
    err = capsys.readouterr().err
    assert (
        f"every worker left the Dask scheduler at {local.scheduler_address} and none came back "
        f"in {WAIT} s; nothing was written" in err
    ), err
    assert f"`dask worker {local.scheduler_address}`" in err
    assert ended - left["at"] < WAIT + 15  # the wait, the watch's look, the worker's close
    assert not out.exists()
    assert not (tmp_path / "grades_feedback").exists()


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_worker_busy_longer_than_the_wait_is_still_a_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "WAIT_FOR_WORKERS", 1)
    monkeypatch.setattr(cluster, "WATCH_EVERY", 0.2)
    root = slow_class(tmp_path / "submitted")
    out = tmp_path / "grades.csv"
    with one_slow_worker(sleep=3) as (local, client):
        start = time.monotonic()
        grade_class(root, out, config=None, run=cluster.on_cluster(local.scheduler_address))
        took = time.monotonic() - start
    assert took >= 6  # each submission took three times the wait, one at a time
    assert sorted(r["student"] for r in read_table(out)) == ["ada", "bob"]


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_worker_back_in_time_lets_the_run_finish(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "WAIT_FOR_WORKERS", 15)
    monkeypatch.setattr(cluster, "WATCH_EVERY", 0.2)
    root = slow_class(tmp_path / "submitted")
    out = tmp_path / "grades.csv"
    gone: dict = {}

    def replace_the_worker_when_busy():
        """The busy worker leaves; a new one joins a second after the scheduler lost it."""
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not any(client.processing().values()):
            time.sleep(0.05)
        local.scale(0)
        while time.monotonic() < deadline and client.nthreads():
            time.sleep(0.05)
        gone["at"] = time.monotonic()
        time.sleep(1)
        local.scale(1)
        while time.monotonic() < deadline and not client.nthreads():
            time.sleep(0.05)
        gone["for"] = time.monotonic() - gone["at"]

    with one_slow_worker(sleep=2) as (local, client):
        replacer = threading.Thread(target=replace_the_worker_when_busy)
        replacer.start()
        try:
            grade_class(root, out, config=None, run=cluster.on_cluster(local.scheduler_address))
        finally:
            replacer.join()
    assert 1 < gone["for"] < 15, gone  # no worker for a while, less than the wait
    assert sorted(r["student"] for r in read_table(out)) == ["ada", "bob"]

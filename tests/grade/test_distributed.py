"""Grading on a Dask cluster (``grade --scheduler ADDRESS``): the same table as a local run, even
when a worker dies mid-run; submissions shipped with their tasks under the same reading rules; no
process left behind; dask imported only when asked for.

The cluster is a ``LocalCluster`` of two worker processes on this machine, one thread each.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import psutil
import pytest
from local_cluster import local_cluster
from test_grade import CORRECT, INVERTED, MASKS, digest, submit

from autograder import cli
from autograder.core.extract import MAX_FILE_BYTES
from autograder.grade.grading import GradeError, SubmissionFolder, grade_class, grade_one
from autograder.grade.outputs.table import read_table
from autograder.sandbox.host.pool import isolated

cluster = pytest.importorskip("autograder.grade.cluster")  # needs distributed (requirements.txt)


def build_class(root: Path) -> Path:
    """A small class with every way a submission reaches the table, on two assignments."""
    submit(root, "ada", CORRECT, "answer_04_1 = 21")
    submit(root, "ada", CORRECT, "answer_02_1 = (3, 5)", assignment="02_qkt")
    submit(root, "bob", INVERTED, "answer_04_1 = 36")
    late = submit(root, "lou", CORRECT)
    (late.parent / "timestamp.txt").write_text("2026-12-02 09:30:00.000000 UTC")
    beside = submit(root, "cat", INVERTED)  # graded: the notebook named after the assignment
    scratch = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CORRECT)])
    nbformat.write(scratch, beside.with_name("scratch.ipynb"))  # ...not this one beside it
    submit(root, "zed", raw="{ not a notebook")
    (root / "lnk" / MASKS).mkdir(parents=True)
    (root / "lnk" / MASKS / f"{MASKS}.ipynb").symlink_to(root / "ada" / MASKS / f"{MASKS}.ipynb")
    big = root / "big" / MASKS / f"{MASKS}.ipynb"
    big.parent.mkdir(parents=True)
    with big.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: over the cap, never read
    return root


def descendants() -> list[psutil.Process]:
    return psutil.Process().children(recursive=True)


def _below(p: psutil.Process, pids: set[int]) -> bool:
    try:
        return any(a.pid in pids for a in p.parents())
    except psutil.Error:  # ended: nothing to wait for
        return False


# The tests that use the module's cluster (and its class graded here): one xdist group, so that
# under `make test` (`-n 2`) one worker starts the cluster and grades the class, not each worker
# that runs one of them.
CLUSTER = pytest.mark.xdist_group("dask-cluster")


@pytest.fixture(scope="module")
def dask_cluster():
    """A cluster of two worker processes; afterwards, every process it started (its workers,
    their sandboxes, and those of a worker killed on the way) is gone."""
    from distributed import Client

    before = {p.pid for p in descendants()}
    seen: list[psutil.Process] = []
    with (
        local_cluster(2) as local,
        Client(local, set_as_default=False) as client,
    ):
        yield local, client, seen
        # the sandboxes this test process keeps for its next class (its own grading of the
        # class, compared with the cluster's: pool.retire_kept) are its own, not the cluster's
        from autograder.sandbox.host.pool import close_kept

        close_kept()
        seen += descendants()
    # what runs below a process that was there before is not the cluster's (the browser tests'
    # Chromium, on the same worker, starts helper processes of its own at any time)
    started = [p for p in seen if p.pid not in before and not _below(p, before)]
    assert started, "the cluster's worker processes were not seen"
    # multiprocessing's resource tracker is this test process's (it ends with it), not dask's:
    # not waited for (waiting for it took the whole 60 s every time)
    started = [p for p in started if not _resource_tracker(p)]
    _, alive = psutil.wait_procs(started, timeout=60)
    assert not alive, f"left behind: {[' '.join(p.cmdline())[:120] for p in alive]}"


def _resource_tracker(process: psutil.Process) -> bool:
    try:
        return "resource_tracker" in " ".join(process.cmdline())
    except psutil.Error:  # gone already
        return False


@pytest.fixture(scope="module")
def graded_here(tmp_path_factory):
    """The class, graded on this machine: the table the cluster must reproduce."""
    root = build_class(tmp_path_factory.mktemp("class") / "submitted")
    out = root.parent / "local.csv"
    start = time.perf_counter()
    grade_class(root, out, workers=2, due=["2026-12-01 23:59 UTC"], config=None)
    print(f"\nlocal run (2 threads): {time.perf_counter() - start:.1f} s")
    return root, out


def feedback_files(out: Path) -> dict[str, str]:
    folder = out.with_name(out.stem + "_feedback")
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.txt"))}


@pytest.mark.slow
@CLUSTER
def test_the_cluster_grades_the_class_to_the_same_table(dask_cluster, graded_here, capsys):
    local, client, _ = dask_cluster
    root, here = graded_here
    before = digest(root)
    out = root.parent / "dask.csv"
    argv = ["grade", str(root), "--out", str(out), "--due", "2026-12-01 23:59 UTC"]
    start = time.perf_counter()
    assert cli.main([*argv, "--scheduler", local.scheduler_address]) == 0
    took = time.perf_counter() - start
    assert "Graded the class: 7 students, 2 assignments" in capsys.readouterr().out
    with capsys.disabled():
        print(f"\ndask run (2 workers x 1 thread): {took:.1f} s")

    assert out.read_text() == here.read_text()
    assert feedback_files(out) == feedback_files(here)
    assert digest(root) == before  # nothing under SUBMISSIONS_DIR written
    rows = {(r["student"], r["assignment"]): r for r in read_table(out)}
    assert rows[("ada", MASKS)]["total"] == "2" and rows[("bob", MASKS)]["total"] == "0"
    assert rows[("cat", MASKS)]["causal_mask"] == "0"  # the inverted one, not scratch.ipynb
    assert rows[("lou", MASKS)]["status"] == "late"
    for student in ("zed", "lnk", "big"):
        assert rows[(student, MASKS)]["status"] == "unreadable"
    assert "symbolic link" in feedback_files(out)[f"lnk/{MASKS}.txt"]
    assert "more than the 32 MB" in feedback_files(out)[f"big/{MASKS}.txt"]
    plugins = client.run(lambda dask_worker: list(dask_worker.plugins))
    assert all(cluster.PLUGIN in names for names in plugins.values())  # ends their sandboxes


@pytest.mark.slow
@CLUSTER
def test_a_worker_killed_mid_run_loses_no_submission(dask_cluster, graded_here):
    local, client, seen = dask_cluster
    root, here = graded_here
    killed: dict = {}

    def kill_a_busy_worker():
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed.get("stop"):
            busy = [w for w, keys in client.processing().items() if keys]
            if busy:
                pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                seen.extend(descendants())  # its sandboxes too: they must die with it
                killed.update(worker=busy[0], tasks=client.processing()[busy[0]], pid=pid)
                os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    out = root.parent / "killed.csv"
    try:
        grade_class(
            root,
            out,
            due=["2026-12-01 23:59 UTC"],
            config=None,
            run=cluster.on_cluster(local.scheduler_address),
        )
    finally:
        killed["stop"] = True
        killer.join()
    assert killed.get("tasks"), "no worker was killed while it had tasks"
    assert not psutil.pid_exists(killed["pid"]) or psutil.Process(killed["pid"]).status() in (
        psutil.STATUS_ZOMBIE,
        psutil.STATUS_DEAD,
    )
    assert out.read_text() == here.read_text()  # every submission, graded the same
    assert feedback_files(out) == feedback_files(here)


@pytest.mark.slow
@CLUSTER
def test_a_task_that_fails_once_is_retried(dask_cluster, graded_here):
    local, client, _ = dask_cluster
    root, here = graded_here

    def fail_first(on: bool) -> None:
        """The first submission each worker grades raises (a full disk, a lost mount...)."""
        import autograder.grade.cluster as on_worker

        real = on_worker.__dict__.setdefault("real_grade_one", on_worker.grade_one)

        def flaky(*task):
            if not on_worker.__dict__.get("failed"):
                on_worker.failed = True
                raise OSError("a transient failure")
            return real(*task)

        on_worker.grade_one = flaky if on else real
        on_worker.failed = False

    def failures() -> bool:
        import autograder.grade.cluster as on_worker

        return on_worker.failed

    out = root.parent / "retried.csv"
    try:
        client.run(fail_first, True)
        grade_class(
            root,
            out,
            due=["2026-12-01 23:59 UTC"],
            config=None,
            run=cluster.on_cluster(local.scheduler_address),
        )
        assert any(client.run(failures).values()), "no task failed"
    finally:
        client.run(fail_first, False)
    assert out.read_text() == here.read_text()


@pytest.mark.slow
@CLUSTER
def test_workers_without_bubblewrap_refuse_unless_the_risk_is_named(dask_cluster, tmp_path):
    local, client, _ = dask_cluster
    root = tmp_path / "submitted"
    submit(root, "zed", raw="{ broken")
    out = tmp_path / "grades.csv"

    def weaken(weak: bool, seen_at_start: bool = False) -> None:
        """The workers lose bubblewrap (``seen_at_start``: after the client checked them)."""
        import autograder.grade.cluster as on_worker
        from autograder.sandbox.host.bwrap import strong_isolation_available as real

        on_worker.strong_isolation_available = (lambda: False) if weak else real
        about = on_worker.__dict__.setdefault("real_about", on_worker._about_worker)
        on_worker._about_worker = (lambda: {**about(), "strong": True}) if seen_at_start else about

    try:
        client.run(weaken, True)
        with pytest.raises(GradeError, match=r"worker\(s\) tcp://.*bubblewrap.*--allow-weak"):
            grade_class(root, out, run=cluster.on_cluster(local.scheduler_address))
        client.run(weaken, True, True)
        with pytest.raises(GradeError, match=r"the worker on .*bubblewrap.*--allow-weak"):
            grade_class(root, out, run=cluster.on_cluster(local.scheduler_address))
        assert not out.exists()
        grade_class(
            root, out, run=cluster.on_cluster(local.scheduler_address), allow_weak_sandbox=True
        )
        assert read_table(out)[0]["status"] == "unreadable"
    finally:
        client.run(weaken, False)


@pytest.mark.slow
@CLUSTER
def test_workers_with_another_version_of_the_course_are_refused(
    dask_cluster, tmp_path, monkeypatch
):
    local, _, _ = dask_cluster
    root = tmp_path / "submitted"
    submit(root, "zed", raw="{ broken")
    monkeypatch.setattr(cluster, "course_version", lambda: "another version")
    with pytest.raises(GradeError, match="another version of the course"):
        grade_class(root, tmp_path / "grades.csv", run=cluster.on_cluster(local.scheduler_address))


def test_no_scheduler_at_the_address_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 2)
    root = tmp_path / "submitted"
    submit(root, "zed", raw="{ broken")
    argv = [
        "grade",
        str(root),
        "--out",
        str(tmp_path / "g.csv"),
        "--scheduler",
        "tcp://127.0.0.1:9",
    ]
    assert cli.main(argv) == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err


def test_a_shipped_submission_grades_as_the_original(tmp_path):
    """What the client ships, laid out again on a worker, is graded exactly as the original
    folder: links, special files, files over the cap, ambiguous folders and timestamps
    included; only the file that is graded travels, and nothing is written where it was read."""
    root = tmp_path / "submitted"
    folders = {}

    def folder(student: str) -> Path:
        path = folders[student] = root / student / MASKS
        path.mkdir(parents=True)
        return path

    nb = submit(tmp_path / "elsewhere", "x", CORRECT)
    (folder("link") / f"{MASKS}.ipynb").symlink_to(nb)
    os.mkfifo(folder("fifo") / f"{MASKS}.ipynb")
    (folder("dir") / f"{MASKS}.ipynb").mkdir()
    with (folder("big") / "mine.ipynb").open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    for name in ("a.ipynb", "b.ipynb"):
        (folders.get("two") or folder("two")).joinpath(name).write_text("{}")
    (folder("late") / f"{MASKS}.ipynb").write_text("{ broken")
    (folders["late"] / "timestamp.txt").write_text("2026-12-02 09:30:00 UTC")
    (folder("latin1") / "mine.ipynb").write_bytes(b'{"cells": "\xe9"}')
    (folder("badtime") / "timestamp.txt").symlink_to(nb)
    (folders["badtime"] / "x.ipynb").write_text("")
    folder("empty")
    before = digest(root)

    for student, path in folders.items():
        shipped = pickle.loads(pickle.dumps(cluster.ship(path, MASKS)))
        here = grade_one(student, MASKS, SubmissionFolder(path), None)
        (tmp_path / student).mkdir()
        there = grade_one(student, MASKS, shipped.unpack(tmp_path / student), None)
        assert there == here, student
        assert pickle.loads(pickle.dumps(here)) == here
        assert here.status in ("unreadable", "not-submitted"), (student, here)
    assert digest(root) == before
    shipped = {student: cluster.ship(path, MASKS).files for student, path in folders.items()}
    assert shipped["big"] == (("mine.ipynb", cluster.BIG, MAX_FILE_BYTES + 1),)
    assert shipped["link"] == ((f"{MASKS}.ipynb", cluster.LINK, b""),)
    assert shipped["two"] == (
        ("a.ipynb", cluster.NAME_ONLY, b""),
        ("b.ipynb", cluster.NAME_ONLY, b""),
    )
    assert grade_one("late", MASKS, SubmissionFolder(folders["late"]), None).submitted is not None
    assert (
        "symbolic link" in grade_one("link", MASKS, SubmissionFolder(folders["link"]), None).error
    )
    for student in ("dir", "fifo"):  # a folder named like a notebook: the same message
        error = grade_one(student, MASKS, SubmissionFolder(folders[student]), None).error
        assert (
            error
            == f"{MASKS}.ipynb: not a regular file. Give the path of a .py file or .ipynb notebook."
        )


def test_a_worker_shutting_down_ends_its_kept_sandboxes():
    with isolated(fresh=False) as server:
        assert server.alive()
    assert server.alive()  # kept for the worker thread's next submission
    cluster.CloseSandboxes().teardown(worker=None)
    assert not server.alive()


def test_check_and_a_local_grade_never_import_dask(tmp_path):
    root = tmp_path / "submitted"
    submit(root, "zed", raw="{ broken")
    code = (
        "import sys\n"
        "from autograder import cli\n"
        f"assert cli.main(['grade', {str(root)!r}, '--out', {str(tmp_path / 'g.csv')!r},"
        " '--allow-weak-sandbox']) == 0\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed'})\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Graded the class" in proc.stdout

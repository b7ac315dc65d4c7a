"""The red team's round 11 on a Dask cluster (notes: rt11, #9): one student's replies took each
worker's judge past its memory limit; the nanny killed it, the task killed every worker it was
retried on (``KilledWorker``), and the class's run stopped with "nothing was written": a correct
classmate got no row. The replies are now refused (tests/sandbox/test_round12.py); and a
submission whose every try kills its worker is now that student's unreadable row, with the
reason, never the class's failure.
"""

from __future__ import annotations

import os

import pytest
from local_cluster import local_cluster
from test_grade import CORRECT, MASKS, submit

from autograder.grade.grading import UNREADABLE, grade_class
from autograder.grade.outputs.table import read_table

cluster = pytest.importorskip("autograder.grade.cluster")  # needs distributed (requirements.txt)


@pytest.mark.slow
def test_a_submission_that_kills_every_worker_is_its_student_s_row_only(tmp_path, monkeypatch):
    import dask
    from distributed import Client
    from distributed.diagnostics.plugin import WorkerPlugin

    class DiesOnMallory(WorkerPlugin):
        """Stands in for a judge the OOM killer ends: on every worker, also a restarted one,
        grading ``mallory`` ends the worker's process."""

        def setup(self, worker):
            import os

            import autograder.grade.cluster as on_worker

            real = on_worker.grade_one

            def dies(student, name, folder, *rest):
                if student == "mallory":
                    with open(os.environ["UNPACKED_LOG"], "a") as log:  # what it leaves
                        print(folder.path, file=log)
                    os._exit(1)
                return real(student, name, folder, *rest)

            on_worker.grade_one = dies

    root = tmp_path / "submitted"
    for student in ("ada", "mallory", "zoe"):  # zoe comes after mallory on the one worker
        submit(root, student, CORRECT, "answer_04_1 = 21")
    out = tmp_path / "grades.csv"
    unpacked = tmp_path / "unpacked.log"
    monkeypatch.setenv("UNPACKED_LOG", str(unpacked))  # the workers' environment is this one
    # LocalCluster closes a worker's nanny for good when, 15 s (lost-worker-timeout) after the
    # scheduler lost that worker, no worker of its name is registered: here each restart is
    # killed within seconds, so on a busy machine one of those checks came while a restart was
    # still starting, the nanny closed, no worker was left for zoe, and the run waited forever
    # (seen under load: 1 run in 4). The test is about what grade does, not that cluster policy.
    with (
        dask.config.set({"distributed.deploy.lost-worker-timeout": "1h"}),
        local_cluster(1) as local,
        Client(local, set_as_default=False) as client,
    ):
        client.register_plugin(DiesOnMallory(), name="dies-on-mallory")
        grade_class(root, out, config=None, run=cluster.on_cluster(local.scheduler_address))
    rows = {r["student"]: r for r in read_table(out)}
    for student in ("ada", "zoe"):  # a death counts against every task its worker holds
        assert rows[student]["status"] != UNREADABLE, rows
        assert float(rows[student]["total"]) > 0, rows
    assert rows["mallory"]["status"] == UNREADABLE, rows
    feedback = (tmp_path / "grades_feedback" / "mallory" / MASKS).glob("*")
    assert any("worker died" in p.read_text() for p in feedback if p.is_file())
    # the submission each killed worker unpacked is gone (it stayed in /tmp for good)
    left = unpacked.read_text().split()
    assert left and not [path for path in left if os.path.exists(path)]

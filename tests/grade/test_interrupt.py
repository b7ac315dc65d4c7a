"""Ctrl-C during `grade`: the submissions being graded finish, the queued ones never start,
nothing is written, and the command says so and exits 130 (as a shell reports Ctrl-C), rather
than a traceback that leaves an instructor guessing what was saved; pressed twice, the same. One
that comes while the outputs are written waits until all of them are (an instructor's trial
stopped a run between the table and the LMS files)."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.grade import grading
from autograder.grade.grading import grade_class
from tests.grade.test_grade import CORRECT, MASKS, submit
from tests.sandbox.marks import NEEDS_BWRAP

ROOT = Path(__file__).resolve().parents[2]
STUDENTS = 8


@pytest.fixture(autouse=True)
def ctrl_c_heard():
    """SIGINT handled as in a terminal, here and in the `grade` started from here, even where the
    suite itself was started with it ignored (a shell's background job, nohup)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@NEEDS_BWRAP
@pytest.mark.parametrize("presses", [1, 2])
@pytest.mark.parametrize("warm", [False, True], ids=["own-process", "warm-grader"])
def test_ctrl_c_stops_grading_writes_nothing_and_says_so(tmp_path, presses, warm):
    """In its own process, or in the warm grader (the command gets the Ctrl-C and hangs up: a
    trial saw a KeyboardInterrupt traceback before the grader's own message there)."""
    for i in range(STUDENTS):
        submit(tmp_path / "submitted", f"s{i}", CORRECT)
    out = tmp_path / "grades" / "grades.csv"
    env = {**os.environ, "AUTOGRADER_DAEMON": "1" if warm else "0"}
    if warm:  # a grader of its own: this one is stopped at the end
        (tmp_path / "rt").mkdir(mode=0o700)
        env["AUTOGRADER_RUNTIME_DIR"] = str(tmp_path / "rt")
    cmd = [sys.executable, "-m", "autograder", "grade", str(tmp_path / "submitted")]
    cmd += ["--out", str(out), "--workers", "1", "--assignment", MASKS]
    grade = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    said, done = b"", re.compile(rb"(\d+)/%d" % STUDENTS)
    with selectors.DefaultSelector() as sel:
        sel.register(grade.stderr, selectors.EVENT_READ)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not any(int(n) >= 1 for n in done.findall(said)):
            if sel.select(timeout=1.0):
                chunk = os.read(grade.stderr.fileno(), 65536)
                if not chunk:
                    break
                said += chunk
    assert any(int(n) >= 1 for n in done.findall(said)), said.decode(errors="replace")
    for _ in range(presses):
        grade.send_signal(signal.SIGINT)  # what Ctrl-C in its terminal sends
        time.sleep(0.3)
    said += grade.communicate(timeout=120)[1]
    if warm:
        subprocess.run([sys.executable, "-m", "autograder.service", "stop"], env=env, cwd=ROOT)
    text = said.decode(errors="replace")
    assert grade.returncode == 130, text
    assert "interrupted: nothing was written" in text
    assert "Traceback" not in text
    assert max(int(n) for n in done.findall(said)) < STUDENTS  # the queued ones never started
    assert not out.parent.exists() or not any(out.parent.iterdir())


@NEEDS_BWRAP
def test_ctrl_c_while_the_outputs_are_written_waits_until_all_are(tmp_path, monkeypatch):
    write = grading.write_outputs

    def pressed_on_the_way(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C between two outputs
        write(*args, **kwargs)

    monkeypatch.setattr(grading, "write_outputs", pressed_on_the_way)
    submit(tmp_path / "submitted", "ada", CORRECT)
    out = tmp_path / "grades" / "grades.csv"
    table = grade_class(tmp_path / "submitted", out, workers=1, assignments=[MASKS], config=None)
    for written in ("grades.csv", "grades_lms.csv", "grades_canvas.csv", "grades_report.html"):
        assert (out.parent / written).is_file(), written
    assert "Ctrl-C came while the outputs were written: all were written first" in table.notes
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as it was

"""Grader benchmark (``make bench``): speed of a check, and of grading a class against nbgrader.

Prints, measured in this run:

1. one ``check`` of one exercise, warm (sandbox server running, as in a notebook after the first
   check): target <= 1 s; plus the cold command line for reference;
2. ``python -m autograder grade`` of N submissions (the lesson's solution notebook, in nbgrader's
   ``submitted/<student>/<assignment>/`` layout) vs ``nbgrader autograde`` of the very same
   submissions, as a throughput ratio: target >= 15x nbgrader, with isolation on (bubblewrap:
   one sandbox per worker, reset between notebooks, as many started ahead as the cores beside
   the judge's import, the others when their worker begins); and, for where the time goes,
   what starting one sandbox costs (its server loading torch), measured in the same run. The
   target (>= 15x) is for ``grade`` in its own process (no warm grader: the first grading of a
   term), the median of three such runs; ``grade`` through a warm grader, and the CPU times, are
   printed beside it.

Exits nonzero when a target is missed. ``--students N`` sets the class size (default 20).
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "04_softmax_masks"
STUDENTS = 20
TARGET = 15.0  # class grading vs nbgrader autograde, wall time, the same submissions (issue 21)
COLD_RUNS = 3  # grade in its own process, timed this many times: the median is compared
BIN = Path(sys.executable).parent


def timed(fn, repeat=1):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_check() -> bool:
    from autograder.core.extract import from_file
    from autograder.core.judge import judge_code

    solution = next((ROOT / "solutions" / ASSIGNMENT).glob("*.ipynb"))
    code = from_file(solution)
    judge_code(code, only=["causal_mask"])  # starts the sandbox server, as a first check does
    warm = timed(lambda: judge_code(code, only=["causal_mask"]), repeat=5)
    cold = timed(
        lambda: subprocess.run(
            [sys.executable, "-m", "autograder", "check", str(solution), "--only", "causal_mask"],
            check=True,
            capture_output=True,
        ),
        repeat=3,
    )
    ok = warm <= 1.0
    print("== check: one exercise (causal_mask) of a lesson notebook")
    print(
        f"  warm check (server running)      {warm:6.3f} s   target <= 1 s   "
        f"{'PASS' if ok else 'FAIL'}"
    )
    print(
        f"  cold command line (new process)  {cold:6.3f} s   (torch imports twice: judge, server)"
    )
    return ok


def make_class(course: Path) -> None:
    """An nbgrader course with the assignment released and STUDENTS submissions of it."""
    shutil.copytree(ROOT / "solutions" / ASSIGNMENT, course / "source" / ASSIGNMENT)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.CourseDirectory.course_id = 'bench'\n"
        "c.Execute.timeout = 300\n"
        "c.ExecutePreprocessor.kernel_name = 'python3'\n"
    )
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    for i in range(STUDENTS):
        student = f"student{i:02d}"
        nbgrader(course, "db", "student", "add", student)
        shutil.copytree(course / "source" / ASSIGNMENT, course / "submitted" / student / ASSIGNMENT)


def nbgrader(course: Path, *args: str, runtime: Path | None = None) -> None:
    """``nbgrader ARGS`` in the course; the notebooks' ``check()`` cells ask the warm grader of
    ``runtime`` (this run's, stopped at the end), or the user's own."""
    subprocess.run(
        [str(BIN / "nbgrader"), *args],
        cwd=course,
        check=True,
        capture_output=True,
        env={
            "PATH": f"{BIN}:/usr/bin:/bin",
            "HOME": str(course),
            "MPLBACKEND": "Agg",
            "PYTHONPATH": str(ROOT),  # the notebooks' kernels import this checkout's autograder
            **({"AUTOGRADER_RUNTIME_DIR": str(runtime)} if runtime else {}),
        },
    )


def bench_sandbox_start() -> float:
    """Seconds from starting a sandbox to its server being ready (torch loaded), median of 3."""
    from autograder.sandbox.host.server import Server

    def start() -> None:
        server = Server()
        try:
            server.wait_ready(300)
        finally:
            server.close()

    start()  # the probe and the font cache, once
    return timed(start, repeat=3)


def run_grade(course: Path, env: dict) -> tuple[float, float]:
    """``grade`` of the class, once: (wall seconds, CPU seconds of its process and children).
    Raises unless every submission was graded with full marks (a failing run is not timed)."""
    out = course / "grades.csv"
    out.unlink(missing_ok=True)
    command = [sys.executable, "-m", "autograder", "grade", str(course / "submitted")]
    command += ["--out", str(out), "--workers", "2"]
    wall, cpu, done = measured(lambda: subprocess.run(command, capture_output=True, env=env))
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    full = [r for r in rows if r["status"] == "graded" and float(r["total"]) == float(r["max"])]
    if done.returncode != 0 or len(full) != STUDENTS:
        raise SystemExit(
            f"grade did not give {STUDENTS} full marks (exit {done.returncode}, "
            f"{len(full)} of {len(rows)} rows):\n{done.stderr.decode()[-2000:]}"
        )
    return wall, cpu


def measured(fn):
    """``fn()`` timed: (wall seconds, CPU seconds of the children it waited for, its result)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = fn()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result


def bench_grade() -> bool:
    tmp = Path(tempfile.mkdtemp(prefix="bench-grade-"))
    rt = tmp / "rt"  # the warm grader of this run, stopped at the end
    rt.mkdir(mode=0o700)
    course = tmp / "course"
    course.mkdir()
    own = {**os.environ, "AUTOGRADER_DAEMON": "0"}  # grade in its own process
    warm = {**os.environ, "AUTOGRADER_DAEMON": "1", "AUTOGRADER_RUNTIME_DIR": str(rt)}
    warm.pop("AUTOGRADER_DAEMON_WORKERS", None)
    load = os.getloadavg()[0]
    try:
        make_class(course)
        # the median of three runs in a process of its own each (one 5-s run varies by +-5%
        # from one to the next, nbgrader's 75 s by less), the slowest first run counted
        colds = sorted(run_grade(course, own) for _ in range(COLD_RUNS))
        cold_wall, cold_cpu = colds[len(colds) // 2]
        run_grade(course, warm)  # starts the warm grader; the next one is timed
        warm_wall, _ = run_grade(course, warm)
        theirs_wall, theirs_cpu, _ = measured(
            lambda: nbgrader(course, "autograde", ASSIGNMENT, "--force", runtime=rt)
        )
    finally:
        subprocess.run([sys.executable, "-m", "autograder.service", "stop"], env=warm)
        shutil.rmtree(tmp, ignore_errors=True)
    start = bench_sandbox_start()
    ratio, warm_ratio = theirs_wall / cold_wall, theirs_wall / warm_wall
    ok = ratio >= TARGET
    from autograder.sandbox.host.bwrap import strong_isolation_available

    isolation = "bubblewrap" if strong_isolation_available() else "process only: no bubblewrap"
    print(f"== grade: {STUDENTS} submissions of {ASSIGNMENT} (isolation: {isolation})")
    print(f"  load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"  {'':34} {'wall':>9} {'CPU':>9}")
    print(f"  nbgrader autograde (baseline)    {theirs_wall:7.2f} s {theirs_cpu:7.2f} s")
    runs = ", ".join(f"{wall:.2f}" for wall, _cpu in colds)
    print(
        f"  grade --workers 2, own process   {cold_wall:7.2f} s {cold_cpu:7.2f} s   "
        f"(median of {runs})"
    )
    print(f"  grade --workers 2, warm grader   {warm_wall:7.2f} s   (CPU in the grader)")
    print(
        f"  class grading, own process       {ratio:7.1f}x  target >= {TARGET:g}x   "
        f"{'PASS' if ok else 'FAIL'}   (CPU: {theirs_cpu / cold_cpu:.1f}x)"
    )
    print(f"  class grading, warm grader       {warm_ratio:7.1f}x")
    per_notebook = cold_wall / STUDENTS
    print(
        f"  one sandbox start (server ready) {start:7.2f} s   {start / per_notebook:6.1f}x "
        "the time grade spends per notebook"
    )
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=STUDENTS)
    parser.add_argument("--only", choices=["check", "grade"])
    args = parser.parse_args()
    STUDENTS = args.students
    benches = {"check": bench_check, "grade": bench_grade}
    results = [fn() for name, fn in benches.items() if args.only in (None, name)]
    sys.exit(0 if all(results) else 1)

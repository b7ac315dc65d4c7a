"""Grader benchmark (``make bench``): speed of a check, and of grading a class against nbgrader.

Prints, measured in this run:

1. one ``check`` of one exercise, warm (sandbox server running, as in a notebook after the first
   check): target <= 1 s; plus the cold command line for reference;
2. ``python -m autograder grade`` of N submissions (the lesson's solution notebook, in nbgrader's
   ``submitted/<student>/<assignment>/`` layout) vs ``nbgrader autograde`` of the very same
   submissions, as a throughput ratio: target >= 10x nbgrader, with isolation on (bubblewrap:
   one sandbox per worker, started ahead, reset between notebooks); and, for where the time goes,
   what starting one sandbox costs (its server loading torch), measured in the same run.

Exits nonzero when a target is missed. ``--students N`` sets the class size (default 20).
"""

from __future__ import annotations

import argparse
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


def nbgrader(course: Path, *args: str) -> None:
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


def bench_grade() -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp)
        make_class(course)
        ours = timed(
            lambda: subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "autograder",
                    "grade",
                    str(course / "submitted"),
                    "--out",
                    str(course / "grades.csv"),
                    "--workers",
                    "2",
                ],
                check=False,
                capture_output=True,
            )
        )
        theirs = timed(lambda: nbgrader(course, "autograde", ASSIGNMENT, "--force"))
    start = bench_sandbox_start()
    ratio = theirs / ours
    ok = ratio >= 10.0
    from autograder.sandbox.host.bwrap import strong_isolation_available

    isolation = "bubblewrap" if strong_isolation_available() else "process only: no bubblewrap"
    print(f"== grade: {STUDENTS} submissions of {ASSIGNMENT} (2 cores, isolation: {isolation})")
    print(f"  nbgrader autograde (baseline)    {theirs:7.2f} s   {STUDENTS / theirs:6.2f} /s")
    print(f"  autograder grade --workers 2     {ours:7.2f} s   {STUDENTS / ours:6.2f} /s")
    print(
        f"  throughput ratio                 {ratio:7.1f}x   target >= 10x   "
        f"{'PASS' if ok else 'FAIL'}"
    )
    print(
        f"  one sandbox start (server ready) {start:7.2f} s   {start / (ours / STUDENTS):6.1f}x "
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

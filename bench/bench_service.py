"""The warm grader (``make bench``): how fast a check answers once it is warm.

Every figure is a ratio to ``python -c "import torch"`` in a fresh process, measured in this run,
interleaved with what it is compared to (medians of ``REPEAT``), so that the ratios hold on a slow
or busy machine. The grader runs in a runtime folder of this run's own, and is stopped at the end.

1. ``python -m autograder check FILE --only causal_mask``, grader warm: target <= 0.5x;
2. ``python -m autograder drill check FILE``, grader warm: target <= 0.5x;
3. the first ``check(causal_mask)`` in a second kernel (a fresh Jupyter kernel that ran the
   lesson's import cell), grader warm: target <= 0.5x;
4. with four busy loops running, 1. again, against ``import torch`` under the same four loops:
   target <= 1.5x, and every grade right (a correct file passes, a wrong one fails with its id);
5. ``python -m autograder grade SUBMITTED --student NAME`` of one notebook, grader warm:
   target <= 2x.

Also printed, with no target, as ratios to the same baseline: the warm check of the slowest
exercise a learner waits for (lesson 09's ``tiled_attention``, whose check measures the peak
memory of three large calls), and lesson 00's progress over a finished course (the 11 solution
notebooks), as its widget asks (``course_progress``: one request per lesson, at once) and as the
command line's ``progress`` does (in one grader worker); and the load average before and after.
Exits nonzero when a target is missed.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 5
LESSON = "04_softmax_masks"
RIGHT = ROOT / "tests" / "lessons" / LESSON / "correct" / "idioms.py"
WRONG = ROOT / "tests" / "lessons" / LESSON / "wrong" / "causal-upper-triangle.py"
results: list[bool] = []


def timed(command: list[str], env: dict, cwd=ROOT) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, done


def torch_import(env: dict) -> float:
    return timed([sys.executable, "-c", "import torch"], env)[0]


def check(env: dict, file: Path = RIGHT) -> tuple[float, subprocess.CompletedProcess]:
    cmd = [sys.executable, "-m", "autograder", "check", str(file), "--only", "causal_mask"]
    return timed([*cmd, "--json"], env)


def row(label: str, seconds: float, base: float, target: float) -> None:
    ratio = seconds / base
    ok = ratio <= target
    results.append(ok)
    print(
        f"  {label:<44} {seconds:6.2f} s  {ratio:5.2f}x   target <= {target}x   "
        f"{'PASS' if ok else 'FAIL'}"
    )


def info(label: str, seconds: float, base: float) -> None:
    """A figure with no target, as a ratio to the baseline."""
    print(f"  {label:<44} {seconds:6.2f} s  {seconds / base:5.2f}x")


def paired(measure, env: dict) -> tuple[float, float]:
    """Medians of ``measure`` and of ``import torch``, interleaved."""
    ours, base = [], []
    for _ in range(REPEAT):
        base.append(torch_import(env))
        ours.append(measure())
    return statistics.median(ours), statistics.median(base)


def kernel_check(env: dict) -> float:
    """Seconds of the first ``check(causal_mask)`` in a new kernel (its import cell run first)."""
    import nbformat
    from jupyter_client.manager import start_new_kernel

    nb = nbformat.read(ROOT / "solutions" / LESSON / f"{LESSON}.ipynb", as_version=4)
    imports = next(c.source for c in nb.cells if c.cell_type == "code")
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        manager, kc = start_new_kernel(
            kernel_name="python3", cwd=str(ROOT / "notebooks" / LESSON), stderr=subprocess.DEVNULL
        )
    finally:
        os.environ.clear()
        os.environ.update(saved)
    try:
        kc.execute_interactive(imports, timeout=300, output_hook=lambda m: None)
        kc.execute_interactive(
            "def causal_mask(seq_len, device=None):\n"
            "    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()\n",
            timeout=60,
        )
        out: list[str] = []
        hook = lambda m: out.append(m["content"].get("text", ""))  # noqa: E731
        start = time.perf_counter()
        kc.execute_interactive("check(causal_mask)", timeout=300, output_hook=hook)
        seconds = time.perf_counter() - start
        assert "✔ causal_mask" in "".join(out), out
        return seconds
    finally:
        kc.stop_channels()
        manager.shutdown_kernel(now=True)


SLOWEST = ROOT / "solutions" / "09_efficient" / "09_efficient.ipynb"
# what lesson 00's progress widget calls in the learner's kernel (autograder/progress.py)
WIDGET = "import sys; from autograder.progress import course_progress; course_progress(sys.argv[1])"


def median_of(command: list[str], env: dict, repeat: int = 3) -> float:
    """Median seconds of ``command`` (which must succeed) over ``repeat`` runs, after one run
    not timed (the grader's sandbox has run this lesson's definitions once, as after a first
    check)."""
    timed(command, env)
    times = []
    for _ in range(repeat):
        seconds, done = timed(command, env)
        assert done.returncode == 0, done.stderr[-2000:]
        times.append(seconds)
    return statistics.median(times)


def busy() -> None:
    while True:
        pass


def drill_file(env: dict, folder: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "autograder", "drill", "start", "causal_mask", "--dir", str(folder)],
        env=env,
        check=True,
        capture_output=True,
    )
    path = folder / "drill_causal_mask.py"
    text = path.read_text()
    body = "    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()\n"
    path.write_text(text.replace("    raise NotImplementedError\n", body, 1))
    return path


def one_student(folder: Path) -> Path:
    submitted = folder / "submitted" / "alice" / LESSON
    submitted.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / LESSON / f"{LESSON}.ipynb", submitted)
    return folder / "submitted"


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="bench-service-"))
    rt = tmp / "rt"
    rt.mkdir(mode=0o700)
    env = {
        **os.environ,
        "AUTOGRADER_RUNTIME_DIR": str(rt),
        "AUTOGRADER_DAEMON": "1",
        "ATTENTION_DRILL_HOME": str(tmp / "drills"),
        "MPLBACKEND": "Agg",
    }
    env.pop("AUTOGRADER_DAEMON_WORKERS", None)
    print(f"== the warm grader (load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")
    try:
        subprocess.run([sys.executable, "-m", "autograder.service", "start"], env=env, check=True)
        for _ in range(2):
            check(env)  # warm: the worker ready, its sandbox too
        warm, base = paired(lambda: check(env)[0], env)
        baseline = 'python -c "import torch" (baseline)'
        print(f"  {baseline:<44} {base:6.2f} s  1.00x")
        row("warm `check FILE --only causal_mask`", warm, base, 0.5)
        drill = drill_file(env, tmp)
        cmd = [sys.executable, "-m", "autograder", "drill", "check", str(drill)]
        timed(cmd, env)
        row("warm `drill check`", paired(lambda: timed(cmd, env)[0], env)[0], base, 0.5)
        kernel = statistics.median(kernel_check(env) for _ in range(3))
        row("first check() in a second kernel", kernel, base, 0.5)
        submitted = one_student(tmp)
        grade = [sys.executable, "-m", "autograder", "grade", str(submitted), "--student", "alice"]
        grade += ["--out", str(tmp / "grades.csv")]
        seconds, done = timed(grade, env)
        assert done.returncode == 0, done.stderr
        row("warm `grade --student NAME` (one notebook)", seconds, base, 2.0)
        heavy = [sys.executable, "-m", "autograder", "check", str(SLOWEST), "--only"]
        heavy += ["tiled_attention", "--json"]
        info("warm `check` of tiled_attention (no target)", median_of(heavy, env), base)
        widget = [sys.executable, "-c", WIDGET, str(ROOT / "solutions")]
        info("progress widget, 11 solutions (no target)", median_of(widget, env), base)
        cli = [sys.executable, "-m", "autograder", "progress", str(ROOT / "solutions")]
        info("`progress`, 11 solutions (no target)", median_of(cli, env), base)
        loops = [multiprocessing.Process(target=busy, daemon=True) for _ in range(4)]
        for p in loops:
            p.start()
        try:
            wrong_grades = 0

            def graded() -> float:
                nonlocal wrong_grades
                seconds, done = check(env)
                right = json.loads(done.stdout)["results"][0]["passed"]
                _, done = check(env, WRONG)
                wrong = json.loads(done.stdout)["results"][0]
                wrong_grades += not right or wrong["passed"] or not wrong["mistake"]
                return seconds

            loaded, loaded_base = paired(graded, env)
            print(f"  with 4 busy loops: import torch {loaded_base:.2f} s")
            row("warm check, 4 busy loops (vs import torch)", loaded, loaded_base, 1.5)
            print(f"  the same, vs import torch without the loops: {loaded / base:.2f}x")
            print(f"  wrong grades under load: {wrong_grades} of {2 * REPEAT}")
            results.append(wrong_grades == 0)
        finally:
            for p in loops:
                p.terminate()
    finally:
        subprocess.run([sys.executable, "-m", "autograder.service", "stop"], env=env)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"  load average after: {os.getloadavg()[0]:.1f}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Start-up latency a learner feels (``make bench``): the lesson's import cell and the first check.

Each figure is measured in fresh Python processes of this run, next to ``import torch`` measured
the same way, so that the ratios hold on a slow or busy machine:

1. the import cell of a lesson notebook (its first code cell, run as a script): target <= 1.5x
   ``import torch``; and the first ``check_answer`` after it, for reference;
2. the first ``check(causal_mask)`` right after them, as a learner meets it in a notebook: the
   cells run in an IPython shell (a kernel's, without Jupyter's messaging), so that ``check()``
   asks the user's warm grader (``autograder/service/``), as in Jupyter, and no grader is running
   yet (a private runtime folder per run, the grader stopped after it): the import cell starts it
   in the background, and the check waits for what is left of its start and says "starting the
   grader…" first: target <= 3 s. For information, the same in a plain script, where ``check()``
   starts a sandbox of its own process (the path where the warm grader cannot be used).

Exits nonzero when a target is missed. Medians of ``REPEAT`` runs.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
LESSON = "04_softmax_masks"
REPEAT = 3

TORCH = """
import time
start = time.perf_counter()
import torch
print(json.dumps({"torch": time.perf_counter() - start}))
"""

CELL = """
import time
start = time.perf_counter()
{cell}
cell = time.perf_counter()
check_answer("04_1", 21)
answer = time.perf_counter()


def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


check(causal_mask)
done = time.perf_counter()
print(json.dumps({{"cell": cell - start, "answer": answer - start, "check": done - answer}}))
"""


# The same cells in an IPython shell: get_ipython() exists, so check() asks the warm grader and
# grades the shell's input history, as in a Jupyter kernel.
SHELL = """
import time
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()


def run(source):
    shell.run_cell(source, store_history=True).raise_error()


start = time.perf_counter()
run({cell!r})
cell = time.perf_counter()
run('check_answer("04_1", 21)')
answer = time.perf_counter()
run(
    "def causal_mask(seq_len, device=None):\\n"
    "    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()\\n"
)
run("check(causal_mask)")
done = time.perf_counter()
print(json.dumps({{"cell": cell - start, "answer": answer - start, "check": done - answer}}))
"""


def import_cell() -> str:
    nb = nbformat.read(ROOT / "solutions" / LESSON / f"{LESSON}.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code")


def run(script: str, grader: bool = False) -> dict[str, float]:
    """``script`` in a fresh process; with ``grader``, its own warm grader (none running at the
    start; stopped, and gone, at the end)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lesson.py"
        path.write_text("import json\n" + textwrap.dedent(script))
        env = {**os.environ, "IPYTHONDIR": str(Path(tmp) / "ipython")}
        env.pop("AUTOGRADER_DAEMON", None)
        runtime = Path(tmp) / "runtime"
        runtime.mkdir(mode=0o700)
        env["AUTOGRADER_RUNTIME_DIR"] = str(runtime)
        if not grader:
            env["AUTOGRADER_DAEMON"] = "0"
        try:
            out = subprocess.run(
                [sys.executable, str(path)],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT / "solutions" / LESSON,  # a notebook's kernel runs in its folder
                env=env,
            )
        finally:
            if grader:
                stop_grader(env)
    lines = out.stdout.strip().splitlines()
    waited = any(line.startswith("starting the grader") for line in lines)
    return {**json.loads(lines[-1]), "waited": waited}


def stop_grader(env: dict) -> None:
    """Stop the grader of ``env``'s runtime folder and wait until its processes are gone (the
    next run must not share the cores with it)."""
    stopped = subprocess.run(
        [sys.executable, "-m", "autograder.service", "stop"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    if not stopped.stdout.startswith("stopping: "):
        return
    pid = json.loads(stopped.stdout.split(": ", 1)[1])["pid"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.1)


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> int:
    cell = import_cell()
    script = CELL.format(cell=cell)
    shell = SHELL.format(cell=cell)
    torch_runs, cell_runs, shell_runs = [], [], []
    for _ in range(REPEAT):  # interleaved, so that a busy moment hits each alike
        torch_runs.append(run(TORCH))
        cell_runs.append(run(script))
        shell_runs.append(run(shell, grader=True))
    torch_s = median(torch_runs, "torch")
    cell_s, answer_s = median(cell_runs, "cell"), median(cell_runs, "answer")
    check_s, script_s = median(shell_runs, "check"), median(cell_runs, "check")
    ratio = cell_s / torch_s
    ok_cell, ok_check = ratio <= 1.5, check_s <= 3.0
    print(f"== start-up of lesson {LESSON} (medians of {REPEAT} fresh processes)")
    print(f"  import torch                          {torch_s:6.2f} s   1.00x")
    print(
        f"  import cell                           {cell_s:6.2f} s   {ratio:.2f}x   "
        f"target <= 1.5x   {'PASS' if ok_cell else 'FAIL'}"
    )
    print(f"  import cell + first check_answer      {answer_s:6.2f} s   {answer_s / torch_s:.2f}x")
    print(
        f"  first check(causal_mask) after them   {check_s:6.2f} s   "
        f"{check_s / torch_s:.2f}x   target <= 3 s   {'PASS' if ok_check else 'FAIL'}"
    )
    print("    (in an IPython shell, as in a notebook: the warm grader, not running before)")
    waited = sum(r["waited"] for r in shell_runs)
    print(f"  the first check said 'starting the grader…' in {waited} of {REPEAT} runs")
    print(
        f"  for information, in a plain script (the process's own sandbox): {script_s:.2f} s, "
        f"'starting the grader…' in {sum(r['waited'] for r in cell_runs)} of {REPEAT}"
    )
    return 0 if ok_cell and ok_check else 1


if __name__ == "__main__":
    sys.exit(main())

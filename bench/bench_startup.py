"""Start-up latency a learner feels (``make bench``): the lesson's import cell and the first check.

Each figure is measured in fresh Python processes of this run, next to ``import torch`` measured
the same way, so that the ratios hold on a slow or busy machine:

1. the import cell of a lesson notebook (its first code cell, run as a script): target <= 1.5x
   ``import torch``; and the first ``check_answer`` after it, for reference;
2. the first ``check(causal_mask)`` right after the import cell (the sandbox server starts in
   the background at the import, and warms up while the learner reads; run at once, as here, the
   check waits for it and says "starting the grader…" first): target <= 3 s.

Exits nonzero when a target is missed. Medians of ``REPEAT`` runs.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
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


def import_cell() -> str:
    nb = nbformat.read(ROOT / "solutions" / LESSON / f"{LESSON}.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code")


def run(script: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lesson.py"
        path.write_text("import json\n" + textwrap.dedent(script))
        out = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, check=True, cwd=ROOT
        )
    lines = out.stdout.strip().splitlines()
    waited = any(line.startswith("starting the grader") for line in lines)
    return {**json.loads(lines[-1]), "waited": waited}


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> int:
    cell_script = CELL.format(cell=import_cell())
    torch_runs, cell_runs = [], []
    for _ in range(REPEAT):  # interleaved, so that a busy moment hits both alike
        torch_runs.append(run(TORCH))
        cell_runs.append(run(cell_script))
    torch_s = median(torch_runs, "torch")
    cell_s, answer_s = median(cell_runs, "cell"), median(cell_runs, "answer")
    check_s = median(cell_runs, "check")
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
    waited = sum(r["waited"] for r in cell_runs)
    print(f"  the first check said 'starting the grader…' in {waited} of {REPEAT} runs")
    return 0 if ok_cell and ok_check else 1


if __name__ == "__main__":
    sys.exit(main())

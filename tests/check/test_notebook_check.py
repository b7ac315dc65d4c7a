"""The check a learner runs below an exercise names the lesson's common mistakes, in a real kernel.

For each lesson, a kernel runs the lesson's own set-up cell, then for each exercise a learner's
wrong version (a file of tests/lessons/<L>/wrong/) and the lesson's ``check(...)`` cell. Each check
must print a short verdict with the mistake's id, no traceback and nothing on stderr, and answer
quickly (how quickly is measured by ``make bench``, not here). A check that has to wait for the
grader's sandbox to start first says so on a line of its own, before the verdict.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import lesson_runs
import nbformat
import pytest
from lesson_files import wrong_file
from nbclient import NotebookClient
from traitlets.config import Config

from autograder.notebook import STARTING

ROOT = Path(__file__).resolve().parents[2]

COMMON_MISTAKES = {
    "01_projections": {
        "project_qkv": "project-transposed-weights",
        "QKVProjection": "projection-has-bias",
    },
    "02_qkt": {"attention_scores": "forgot-transpose-k"},
    "03_scaling": {
        "dot_product_variance": "variance-elementwise",
        "softmax_entropy": "entropy-log2",
        "scaled_attention_scores": "scaled-by-dk",
    },
    "04_softmax_masks": {
        "softmax": "softmax-unstable",
        "causal_mask": "causal-upper-triangle",
        "padding_mask": "padding-mask-inverted",
        "masked_scores": "fill-overflows-fp16",
    },
}


def setup_cell(assignment: str, edition: str = "") -> str:
    """The lesson's first code cell (of ``edition``'s notebooks: "zh-CN", or "" for English):
    its imports, `check` among them."""
    folder = ROOT / edition / "notebooks" / assignment
    nb = nbformat.read(folder / f"{assignment}.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code" and "import" in c.source)


def run_cells(cells: list[str], folder: Path, allow_errors: bool = False) -> list:
    """``cells`` run in a fresh kernel in ``folder``; the executed cells. An error stops the run
    and fails the test, unless ``allow_errors`` (then Run All goes on past it)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(folder)}},
        config=Config(lesson_runs.kernel_config()),
    ).execute()
    return nb.cells


def verdict(text: str) -> str:
    """A check's output without the line that says the grader is starting (first check only)."""
    return text.removeprefix(STARTING + "\n")


@pytest.mark.slow
@pytest.mark.parametrize("assignment", sorted(COMMON_MISTAKES))
def test_check_cells_name_the_lessons_common_mistakes(assignment, venv_on_path):
    mistakes = COMMON_MISTAKES[assignment]
    cells = [setup_cell(assignment)]
    for name, mistake in mistakes.items():
        cells.append(wrong_file(mistake).read_text())
        cells.append(f"check({name})")
    ran = run_cells(cells, ROOT / "notebooks" / assignment)

    for i, (name, mistake) in enumerate(mistakes.items()):
        outputs = ran[2 + 2 * i].outputs
        assert all(o.output_type == "stream" and o.name == "stdout" for o in outputs), outputs
        text = verdict("".join(o.text for o in outputs))
        assert text.startswith(f"✘ {name}"), text
        assert f"[{mistake}]" in text, text
        assert "Traceback" not in text and len(text.splitlines()) <= 8, text


GOOD_SOFTMAX = """
def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(x - m)
    total = e.sum(dim=dim, keepdim=True)
    return e / torch.where(total > 0, total, torch.ones_like(total))
"""


@pytest.mark.slow
def test_check_grades_what_was_passed_not_a_later_rebinding(venv_on_path):
    """A cell that checks a wrong softmax and then rebinds the name to a good one on a later line
    gets the wrong one's verdict; the next cell's check sees the good one."""
    wrong = wrong_file("softmax-unstable").read_text()
    cells = [
        setup_cell("04_softmax_masks"),
        f"{wrong}\ncheck(softmax)\n{GOOD_SOFTMAX}",
        "check(softmax)",
    ]
    ran = run_cells(cells, ROOT / "notebooks" / "04_softmax_masks")
    same_cell, next_cell = (verdict("".join(o.text for o in ran[i].outputs)) for i in (1, 2))
    assert same_cell.startswith("✘ softmax") and "[softmax-unstable]" in same_cell, same_cell
    assert next_cell.startswith("✔ softmax"), next_cell


def test_a_check_that_waits_for_the_grader_says_so_first_and_only_then(tmp_path):
    """Right after the import, the sandbox is still loading torch: the first check says it is
    starting the grader, on its own line before the verdict; the next check does not wait."""
    script = tmp_path / "learner.py"
    script.write_text(
        textwrap.dedent(
            """
            import torch
            from autograder.notebook import check

            def causal_mask(seq_len, device=None):
                return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()

            check(causal_mask)
            check(causal_mask)
            """
        )
    )
    out = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"},
    )
    lines = out.stdout.splitlines()
    assert lines[0] == STARTING, out.stdout
    assert lines[1].startswith("✔ causal_mask") and lines[2].startswith("✔ causal_mask"), lines
    assert len(lines) == 3 and out.stderr == "", (out.stdout, out.stderr)


def _error(cell) -> tuple[str, str]:
    [error] = [o for o in cell.outputs if o.output_type == "error"]
    return error.ename, "\n".join(error.traceback)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edition", "said"),
    [
        ("", ("Question 05.2 has no answer", "softmax is not defined in this kernel yet")),
        ("zh-CN", ("问题 05.2 在这个内核中还没有答案", "softmax 在这个内核中还没有定义")),
    ],
)
def test_a_check_before_its_cell_has_run_says_which_cell_to_run_in_the_learners_language(
    edition, said, venv_on_path
):
    """Two learner trials met Python's English NameError in a check cell run before its answer's
    (or exercise's) cell: it says which cell to run first, in one line in the lesson's language,
    and is still an error (Run All stops there; a graded cell scores nothing). Lesson 00's first
    cell imports only check_answer, and gets the same. Any other NameError is IPython's own."""
    cells = run_cells(
        [
            setup_cell("00_setup", edition),
            'check_answer("05_2", answer_05_2)',
            "print(not_a_course_name)",
            setup_cell("05_attention", edition),
            "check(softmax)",
            "check(softmax, strict=True)",
        ],
        ROOT / edition / "notebooks" / "05_attention",
        allow_errors=True,
    )
    answer, other, exercise, strict = (_error(cells[i]) for i in (1, 2, 4, 5))
    assert answer[0] == "NameError" and answer[1].startswith("✘ " + said[0]), answer
    assert "answer_05_2 = ..." in answer[1] and len(answer[1].splitlines()) == 1, answer
    assert other[0] == "NameError" and "not_a_course_name" in other[1], other
    assert "Traceback" in other[1] or "----" in other[1], other  # IPython's, as before
    for shown in (exercise, strict):
        assert shown[0] == "NameError" and shown[1] == exercise[1], shown
        assert shown[1].startswith("✘ " + said[1]) and len(shown[1].splitlines()) == 1, shown

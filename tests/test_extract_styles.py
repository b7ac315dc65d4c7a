"""A .py file runs as Python imports it; a notebook keeps the statements its definitions need.

Issue 19: helpers defined under a top-level ``if``/``try``, constants built in a top-level loop
and augmented assignments were dropped by the extraction, so correct code failed with NameError.
"""

from __future__ import annotations

from pathlib import Path

from autograder.core.extract import from_file, from_sources
from autograder.core.judge import judge_file

STYLE = Path(__file__).parent / "styles" / "module_level_code.py"


def test_a_module_style_file_passes_its_exercises():
    results = judge_file(STYLE)
    assert [r.exercise for r in results] == [
        "attention_scores",
        "scaled_attention_scores",
        "masked_scores",
    ]
    assert all(r.passed for r in results), [(r.exercise, r.message) for r in results]


def test_a_module_keeps_every_statement_but_the_main_guard_and_check_calls(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("X = 1\nX += 1\nprint(X)\ncheck(X)\nif __name__ == '__main__':\n    X = 99\n")
    [cell] = from_file(path).cells
    assert "X += 1" in cell.source and "print(X)" in cell.source
    assert "check(X)" not in cell.source and "99" not in cell.source


def test_a_notebook_keeps_what_definitions_read_and_skips_demos():
    cells = [
        ("cell 1", "NEG = -1.0\nNEG *= float('inf')\nT = {}\nfor d in (1, 2):\n    T[d] = d\n"),
        ("cell 2", "try:\n    from math import sqrt\nexcept ImportError:\n    sqrt = None\n"),
        ("cell 3", "def f(x):\n    y = x * T[1] / sqrt(4)\n    return max(y, NEG)\n"),
        ("cell 4", "for x in range(3):\n    y = f(x)\nfor step in range(9):\n    loss = step\n"),
    ]
    code = from_sources("nb.ipynb", cells)
    kept = "\n".join(c.source for c in code.cells)
    assert "NEG *= " in kept and "T[d] = d" in kept and "from math import sqrt" in kept
    assert "y = f(x)" not in kept and "loss = step" not in kept

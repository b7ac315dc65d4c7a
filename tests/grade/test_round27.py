"""Red team round 27 (notes: rt27) on what the judge does with a notebook's text.

1. The name analysis (which statements the definitions need) kept each scope's reads: memory
   quadratic in nested lambdas; ``tests/check/test_name_analysis.py``.
2. formgrader's copy of a code cell had its lines of spaces emptied only where they ended in
   ``\\n``; pygments (and Python) also end a line at a lone ``\\r``, so ``" \\r"`` repeated was one
   line to the grader and thousands to the lexer (40 KB: 22.6 s per view of the page).
3. The extraction split cells with ``str.splitlines``, which also ends a line at ``\\u2028``,
   ``\\x0c``, ``\\x85``...: one pasted into a string literal cut it in two, the whole cell was
   dropped, and correct code scored 7/8. It splits where Python does.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from autograder.core.extract import from_sources
from autograder.grade.inert import inert


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_formgraders_copy_has_no_line_of_spaces_whatever_ends_it(end):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1\n" + f" {end}" * 3000 + "\ry = 2")]
    inert(nb)
    [cell] = nb.cells
    assert "\r" not in cell.source
    assert not re.search(r"^[^\S\n]+$", cell.source, re.MULTILINE), "a line of spaces is left"
    assert cell.source.splitlines()[0] == "x = 1" and cell.source.endswith("\ny = 2")
    assert cell.source.count("\n") == 3002  # the same lines, as Python reads them


@pytest.mark.parametrize("mark", ["\u2028", "\u2029", "\x0c", "\x85", "\x1c", "\x0b"])
def test_a_line_separator_in_a_string_keeps_the_cell(mark):
    cell = f'NOTE = "one{mark}two"\n\ndef softmax(x):\n    return NOTE\n'
    code = from_sources("mine.ipynb", [("cell 1", cell)])
    assert {"NOTE", "softmax"} <= code.defined, code.problems
    assert not code.problems
    [kept] = code.cells
    namespace = {}
    exec(compile(kept.source, "cell", "exec"), namespace)
    assert namespace["softmax"](None) == f"one{mark}two"


def test_text_after_a_line_separator_in_a_comment_stays_a_comment():
    cell = "def f():\n    return 1  # a note\u2028f = None\n"
    code = from_sources("mine.ipynb", [("cell 1", cell)])
    namespace = {}
    for kept in code.cells:
        exec(compile(kept.source, "cell", "exec"), namespace)
    assert namespace["f"]() == 1  # as Python runs the cell: `f = None` is in the comment

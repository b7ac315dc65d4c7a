"""Red team rounds 28 to 30: CPython 3.11's parser has shapes that cost time and memory quadratic
in their length, holding the GIL, so that one notebook froze every grading thread and a classmate
graded beside it (``--workers 2``) lost points to deadlines that ran meanwhile: an f-string of
420000 fields (round 28), the same fields in a format spec, after a count of fields missed them,
and a line of unclosed quotes that made the counting ``tokenize`` itself quadratic (round 29),
a dotted name of 32760 parts in an ``import`` (round 30: 12.5 s and 6.7 GB for one cell).

Sources longer than a course cell are read first by one child process per notebook, under CPU
and memory limits; the judge parses one only if the child read it quickly and in little memory.
"""

from __future__ import annotations

import ast
import subprocess
import time

import pytest

from autograder.core import syntax
from autograder.core.extract import from_sources

# Each costs Python 3.11's parser a tenth of a second or more (limits patched below it).
SLOW = {
    "fields": 'x = 1\nif False:\n    S = f"' + "{x}" * 30000 + '"\n',
    "raw fields": "x = 1\nif False:\n    S = Rf'" + "{x}" * 30000 + "'\n",
    "format spec": 'x = 1\nif False:\n    S = f"{x:' + "{{}}" * 25000 + '}"\n',
    "spec of sets": 'x = 1\nif False:\n    S = f"{x:' + "{{x}}" * 20000 + '}"\n',
    "dotted import": "import " + "\U00020000." * 8000 + "a as b\n",
}


@pytest.fixture
def parsed(monkeypatch):
    """The lengths of the sources the judge hands to Python's parser (in its own process), and
    the children it starts."""
    seen = {"parsed": [], "children": 0}
    real_parse, real_run = ast.parse, subprocess.run

    def recording(source, *args, **kwargs):
        seen["parsed"].append(len(source))
        return real_parse(source, *args, **kwargs)

    def counting(*args, **kwargs):
        seen["children"] += 1
        return real_run(*args, **kwargs)

    monkeypatch.setattr(syntax.ast, "parse", recording)
    monkeypatch.setattr(syntax.subprocess, "run", counting)
    monkeypatch.setattr(syntax, "SOURCE_CPU", 0.05)
    return seen


@pytest.mark.parametrize("shape", SLOW)
def test_a_source_the_parser_takes_long_on_is_never_parsed_by_the_judge(parsed, shape):
    with pytest.raises(syntax.TooSlowToParse) as refused:
        syntax.parse(SLOW[shape])
    assert "more than 0.05 s of CPU time" in str(refused.value)
    assert not parsed["parsed"] and parsed["children"] == 1


def test_a_line_of_unclosed_quotes_is_refused_at_once(parsed):
    """Round 29's finding 2: 1001 braces in a comment, then ``x = '\\'\\'\\'...`` (1.8 MB)."""
    source = "# " + "{" * 1001 + "\nx = '" + "\\'" * 900000 + "\n"
    cpu = time.process_time()
    with pytest.raises(SyntaxError) as refused:
        syntax.parse(source)
    assert refused.value.lineno == 2 and "unterminated string" in refused.value.msg
    assert not parsed["parsed"]
    assert time.process_time() - cpu < 1.0  # the judge's own CPU: it only read the child's reply


def test_long_sources_the_parser_reads_quickly_are_read(parsed, monkeypatch):
    monkeypatch.setattr(syntax, "SOURCE_CPU", 2.0)
    data = "D = [" + ", ".join("{'k': {}}" for _ in range(1000)) + "]\n"
    fine = 'x = 2\nS = f"' + "{x}" * 1000 + '{{literal}}"\nT = "' + "{}" * 3000 + '"\n'
    long = "x = 1\n" + "y = x + 1\n" * 10000  # 100 KB of plain code
    trees = syntax.parse_all([data, "z = 3\n", fine, long])
    assert all(isinstance(tree, ast.Module) for tree in trees), trees
    assert len(parsed["parsed"]) == 4 and parsed["children"] == 1  # one child for the three


def test_a_notebook_s_slow_cells_are_skipped_and_the_rest_kept(parsed):
    cells = [
        ("cell 1", "def softmax(x):\n    return x\n"),
        ("cell 2", SLOW["format spec"]),
        ("cell 3", "def causal_mask(n, device=None):\n    return n\n"),
        ("cell 4", SLOW["dotted import"]),
    ]
    code = from_sources("mine.ipynb", cells)
    assert code.defined == {"softmax", "causal_mask"}
    assert parsed["children"] == 1
    assert len(code.problems) == 2
    for label, problem in zip(("cell 2", "cell 4"), code.problems, strict=True):
        assert problem.startswith(f'{label} ("'), problem  # its first line quoted
        assert ") could not be read: Python's parser needs more than" in problem
        assert problem.endswith("which the grader does not spend; skipped it")


def test_what_the_child_did_not_read_in_its_time_is_refused(parsed, monkeypatch):
    """The child's CPU time for a notebook is bounded: the source it was reading when it ran
    out, and those after it, are refused without being parsed here."""
    monkeypatch.setattr(syntax, "PARSE_CPU_BUDGET", 1)
    slow = 'if False:\n    S = f"{x:' + "{{}}" * 100000 + '}"\n'  # 400 KB: about 9 s here
    trees = syntax.parse_all([slow, SLOW["fields"], "y = 1\n"])
    assert isinstance(trees[0], syntax.TooSlowToParse)
    assert isinstance(trees[1], syntax.TooSlowToParse) and "cells before" in str(trees[1])
    assert isinstance(trees[2], ast.Module)
    assert parsed["parsed"] == [len("y = 1\n")]


def test_the_long_cells_memory_is_counted_together(parsed, monkeypatch):
    """Round 31: the child measured each cell's memory from the peak the cell before left, so
    cells of 416, 373, 313 and 269 MB each passed and the judge parsed all four (1.4 GB). Here,
    with a limit of 120 MB: a cell of about 99 MB, then one of about 143 MB (44 MB above it)."""
    monkeypatch.setattr(syntax, "SOURCE_CPU", 2.0)
    monkeypatch.setattr(syntax, "SOURCE_MEMORY", 120 * 2**20)
    first, second = ("import " + "\U00020000." * n + "a\n" for n in (4000, 4800))
    trees = syntax.parse_all([first, second])
    assert isinstance(trees[0], ast.Module) and isinstance(trees[1], syntax.TooSlowToParse)
    assert parsed["parsed"] == [len(first)]

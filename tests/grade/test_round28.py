"""Red team rounds 28 and 29: CPython 3.11 parses an f-string in time quadratic in its
replacement fields, holding the GIL. One of 420000 fields (1.26 MB, in an ``if False:`` block)
froze every grading thread for minutes, and a classmate graded beside it (``--workers 2``) got
0/8 or 3/8 from deadlines that ran meanwhile. Round 28's fix counted the fields with ``tokenize``
first; round 29 hid them in a format spec (``f"{a:{{}}{{}}...}"``, counted as one) and made
``tokenize`` itself quadratic with a line of unclosed quotes (days for one line).

A source Python's parser may take long on (long, or with many braces) is read first in a child
process under a CPU limit; the judge parses it only when the child read it within that limit,
and the parser's time on one notebook's risky cells comes out of one budget.
"""

from __future__ import annotations

import ast
import time

import pytest

from autograder.core import syntax
from autograder.core.extract import from_sources

# Each takes Python 3.11's parser seconds (200 KB: 2.7 CPU-s for the format spec, round 29).
SLOW = {
    "fields": 'x = 1\nif False:\n    S = f"' + "{x}" * 60000 + '"\n',
    "raw fields": "x = 1\nif False:\n    S = Rf'" + "{x}" * 60000 + "'\n",
    "format spec": 'x = 1\nif False:\n    S = f"{x:' + "{{}}" * 50000 + '}"\n',
    "spec of sets": 'x = 1\nif False:\n    S = f"{x:' + "{{x}}" * 40000 + '}"\n',
}


@pytest.fixture
def parsed(monkeypatch):
    """The lengths of the sources the judge hands to Python's parser (in its own process)."""
    lengths = []
    real = ast.parse

    def recording(source, *args, **kwargs):
        lengths.append(len(source))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(syntax.ast, "parse", recording)
    return lengths


@pytest.mark.parametrize("shape", SLOW)
def test_a_source_the_parser_takes_long_on_is_never_parsed_by_the_judge(parsed, shape):
    budget = syntax.ParseBudget(1.0)
    with pytest.raises(syntax.TooSlowToParse) as refused:
        syntax.parse(SLOW[shape], budget=budget)
    assert "more than 1 s of CPU time" in str(refused.value)
    assert not parsed and budget.left < 1
    with pytest.raises(syntax.TooSlowToParse):  # the budget is spent: no child, no parse
        syntax.parse("y = [" + "{1: 2}, " * 1001 + "]\n", budget=budget)
    assert not parsed


def test_a_line_of_unclosed_quotes_is_refused_at_once(parsed):
    """Round 29's finding 2: 1001 braces in a comment, then ``x = '\\'\\'\\'...`` (1.8 MB): Python
    3.11's pure-Python tokenize retried a regex scan to the end of the line at each quote."""
    source = "# " + "{" * 1001 + "\nx = '" + "\\'" * 900000 + "\n"
    cpu = time.process_time()
    with pytest.raises(SyntaxError) as refused:
        syntax.parse(source)
    assert refused.value.lineno == 2 and "unterminated string" in refused.value.msg
    assert not parsed
    assert time.process_time() - cpu < 1.0  # the judge's own CPU: it only read the child's reply


def test_braces_elsewhere_and_f_strings_the_parser_reads_quickly_are_read(parsed):
    data = "D = [" + ", ".join("{'k': {}}" for _ in range(1000)) + "]\n"
    fine = 'x = 2\nS = f"' + "{x}" * 1000 + '{{literal}}"\nT = "' + "{}" * 3000 + '"\n'
    long = "x = 1\n" + "y = x + 1\n" * 10000  # 100 KB of plain code
    budget = syntax.ParseBudget()
    for source in (data, fine, long):
        assert isinstance(syntax.parse(source, budget=budget), ast.Module)
    assert len(parsed) == 3
    assert budget.left > syntax.PARSE_CPU_BUDGET - 1.0


def test_the_cells_are_skipped_and_the_rest_of_the_notebook_kept(monkeypatch):
    monkeypatch.setattr(syntax, "PARSE_CPU_BUDGET", 1.0)
    monkeypatch.setattr(syntax.ParseBudget.__init__, "__defaults__", (1.0,))
    cells = [
        ("cell 1", "def softmax(x):\n    return x\n"),
        ("cell 2", SLOW["format spec"]),
        ("cell 3", "def causal_mask(n, device=None):\n    return n\n"),
        ("cell 4", SLOW["fields"]),
    ]
    code = from_sources("mine.ipynb", cells)
    assert code.defined == {"softmax", "causal_mask"}
    assert len(code.problems) == 2
    for label, problem in zip(("cell 2", "cell 4"), code.problems, strict=True):
        assert problem.startswith(f"{label} could not be read: Python's parser needs more than")
        assert problem.endswith("which the grader does not spend; skipped it")

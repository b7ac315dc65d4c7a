"""Red team round 28 (notes: rt28): CPython 3.11 parses an f-string in time quadratic in its
replacement fields, holding the GIL. One of 420000 fields (1.26 MB, in an ``if False:`` block)
froze every grading thread for minutes, and a classmate graded beside it (``--workers 2``) got
0/8 or 3/8 from deadlines that ran meanwhile. The judge no longer hands such an f-string to the
parser: the cell is skipped as one Python cannot read, in linear time.
"""

from __future__ import annotations

import ast

import pytest

from autograder.core import syntax
from autograder.core.extract import from_sources

FIELDS = syntax.MAX_FSTRING_FIELDS


@pytest.fixture
def parsed(monkeypatch):
    """The lengths of the sources the judge hands to Python's parser."""
    lengths = []
    real = ast.parse

    def recording(source, *args, **kwargs):
        lengths.append(len(source))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(syntax.ast, "parse", recording)
    return lengths


@pytest.mark.parametrize("prefix", ["f", "F", "rf", "Fr", "fR"])
def test_an_f_string_of_too_many_fields_never_reaches_the_parser(parsed, prefix):
    source = "x = 1\nif False:\n    S = " + prefix + '"' + "{x}" * (FIELDS + 1) + '"\n'
    with pytest.raises(SyntaxError) as refused:
        syntax.parse(source)
    assert refused.value.lineno == 3 and "f-string" in refused.value.msg
    assert not parsed


def test_braces_elsewhere_and_f_strings_within_the_limit_are_read(parsed):
    data = "D = [" + ", ".join("{'k': {}}" for _ in range(FIELDS)) + "]\n"
    fine = 'x = 2\nS = f"' + "{x}" * FIELDS + '{{literal}}"\nT = "' + "{}" * 3 * FIELDS + '"\n'
    for source in (data, fine):
        assert isinstance(syntax.parse(source), ast.Module)
    assert len(parsed) == 2


def test_the_cell_is_skipped_and_the_rest_of_the_notebook_kept():
    attack = "if False:\n    S = f'" + "{a}" * (20 * FIELDS) + "'\n"
    cells = [("cell 1", "def softmax(x):\n    return x\n"), ("cell 2", attack)]
    code = from_sources("mine.ipynb", cells)
    assert code.defined == {"softmax"}
    assert code.problems == [
        f"cell 2 has a syntax error on line 2: an f-string with more than {FIELDS} {{}} fields, "
        "which the grader does not read; skipped it"
    ]

"""Red team round 24 (notes: rt24), the notebook-reading part (the sandbox-lending part is
``tests/grade/test_grade.py``): one schema error in a notebook (``"execution_count": "no"``) sent
nbformat from its fast validator to jsonschema's pure-Python one, to say more about the error,
about 5 s of CPU per MB before any learner code ran (a 31.6 MB notebook: 157 s instead of 20 s),
in ``check``, ``grade``, and twice in ``grade --gradebook``. The judge reads a notebook without
nbformat's validation (whose result nbformat only logs), and checks what it shows formgrader with
the fast validator only."""

from __future__ import annotations

import contextlib
import json

import nbformat
import pytest
from nbformat import json_compat
from test_gradebook_round12 import autograded, course_of, solution

from autograder.core.extract import from_file, read_notebook
from autograder.core.judge import judge_code


@contextlib.contextmanager
def no_slow_validator():
    """jsonschema's pure-Python validator is never run on the whole notebook meanwhile."""

    def refused(self, data, schema=None):
        if schema is None and isinstance(data, dict) and "cells" in data:
            raise AssertionError("jsonschema's pure-Python validator ran on a learner's notebook")
        return real(self, data, schema)

    real = json_compat.JsonSchemaValidator.iter_errors
    with pytest.MonkeyPatch.context() as m:
        m.setattr(json_compat.JsonSchemaValidator, "iter_errors", refused)
        m.setattr(json_compat.JsonSchemaValidator, "validate", lambda self, d: refused(self, d))
        yield


def invalid_solution(cells: int = 50):
    nb = solution()
    nb.cells += [nbformat.v4.new_code_cell(f"x{i} = {i}") for i in range(cells)]
    nb.cells[-1].execution_count = "no"  # the one schema error
    return nb


def test_an_invalid_notebook_is_read_and_graded_without_the_slow_validator(tmp_path):
    path = tmp_path / "mine.ipynb"
    path.write_text(json.dumps(invalid_solution()))
    with no_slow_validator():
        assert read_notebook(path.read_text()).cells[-1].execution_count == "no"
        code = from_file(path)
    results = judge_code(code, only=["causal_mask"])
    assert [r.passed for r in results] == [True]


def test_the_autograded_notebook_of_an_invalid_one_is_checked_fast(released, tmp_path):
    nb = json.loads(json.dumps(invalid_solution()))
    nb["cells"][-1]["metadata"]["tags"] = "not a list"  # survives nbgrader's preprocessors
    course = course_of(released, tmp_path)
    with no_slow_validator(), pytest.raises(ValueError, match="not a valid notebook"):
        autograded(course, nb)

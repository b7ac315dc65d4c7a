"""Red team round 23 (notes: rt23): files read by the judge, and the page formgrader makes of them.

1. nbformat's upgrade of a version-3 notebook wrote a heading cell as ``"#" * level``, with the
   learner's level: 184 bytes made 0.6 GB in the judge (``check``, every ``grade``), 1.6 KB more
   than the machine has. Only nbformat 4 is read; an older notebook is refused, saying what to do.
2. formgrader highlights every learner code cell: with the IPython lexer where the release was
   saved by Jupyter (``language_info``), quadratic in a run of blank lines (10 KB of newlines:
   15 s per page view), a cell's ``magics_language`` picking any lexer; with Python's lexer (the
   course as shipped), quadratic in a run of lines of spaces (20000: 21 s). The autograded
   notebook names Python's lexer, drops ``magics_language``, and empties lines of spaces.
"""

from __future__ import annotations

import json

import nbformat
import pytest
from test_gradebook import MASKS
from test_gradebook_inert import formgrader_html
from test_gradebook_round12 import autograded, course_of, solution

from autograder.core.extract import ExtractError, from_file, read_notebook
from autograder.core.judge import judge_code

V3_HEADING = {
    "nbformat": 3,
    "nbformat_minor": 0,
    "metadata": {},
    "worksheets": [{"cells": [{"cell_type": "heading", "level": 300_000_000, "source": "x"}]}],
}


@pytest.mark.parametrize("version", [3, 2, 1, 5, "4", None])
def test_a_notebook_not_in_nbformat_4_is_refused_before_nbformat_converts_it(tmp_path, version):
    path = tmp_path / "mine.ipynb"
    path.write_text(json.dumps({**V3_HEADING, "nbformat": version}))
    with pytest.raises(ExtractError) as e:
        from_file(path)
    assert "nbformat 4" in str(e.value) and "open it in Jupyter and save it" in str(e.value)
    assert len(str(e.value)) < 400


def test_a_version_3_heading_costs_the_judge_nothing(tmp_path):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ValueError, match="nbformat 3"):
        read_notebook(json.dumps(V3_HEADING))  # 300 MB of '#' if upgraded
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB


def test_a_version_4_notebook_is_read_as_before(tmp_path):
    path = tmp_path / "mine.ipynb"
    nbformat.write(solution(), path)
    assert read_notebook(path.read_text()) == nbformat.read(path, as_version=4)
    results = judge_code(from_file(path), only=["causal_mask"])
    assert [r.passed for r in results] == [True]


def test_formgrader_highlights_learner_code_with_pythons_lexer(released, tmp_path, monkeypatch):
    from nbconvert.filters import highlight

    lexers = []
    real = highlight._pygments_highlight
    monkeypatch.setattr(
        highlight,
        "_pygments_highlight",
        lambda source, output_formatter, language="ipython", metadata=None: (
            lexers.append((language, (metadata or {}).get("magics_language")))
            or real(source, output_formatter, language, metadata)
        ),
    )
    course = course_of(released, tmp_path)
    for release in course.rglob(f"{MASKS}.ipynb"):  # as Jupyter saves it: IPython's lexer named
        saved = nbformat.read(release, as_version=4)
        saved.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
        nbformat.write(saved, release)
    nb = solution()
    blank = nbformat.v4.new_code_cell("x = 1" + "\n" * 2000 + "y = 2")  # x4 per x2 for ipython3
    cddl = {"magics_language": "cddl"}  # x1.6 per backslash
    magic = nbformat.v4.new_code_cell('x = 1  # "' + "\\" * 20, metadata=cddl)
    spaces = nbformat.v4.new_code_cell("x = 1\n" + " \n" * 3000 + "y = 2")  # x4 per x2, Python's
    nb.cells[1:1] = [blank, magic, spaces]
    target = autograded(course, nb)
    html = formgrader_html(target)
    assert "y" in html and lexers and {lexer for lexer, _ in lexers} == {"python"}
    assert {magics for _, magics in lexers} == {None}
    shown = [c.source for c in nbformat.read(target, as_version=4).cells]
    assert "x = 1\n" + "\n" * 3000 + "y = 2" in shown  # the same lines, without their spaces

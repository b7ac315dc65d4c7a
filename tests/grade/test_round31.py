"""Red team round 31: pygments's Python lexer is quadratic in the length of a line of ``\\N{``
repeated (120 KB: 32 s per view of formgrader's page, which colours it anew at every view); the
page's copy of learner code shows cells of reasonable size only, saying where the rest is."""

from __future__ import annotations

import time

import nbformat

from autograder.grade.inert import (
    MAX_CODE_LINE,
    MAX_CODE_SHOWN,
    MAX_CODE_TOTAL,
    NOT_SHOWN,
    inert,
)

ESCAPES = "x = '" + "\\N{" * 20000 + "'"  # one line of 60 KB


def _shown(*sources: str) -> list[str]:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    return [cell.source for cell in inert(nb).cells]


def test_code_too_long_to_colour_quickly_is_not_shown_and_the_rest_is():
    plain = "def softmax(x):\n    return x.softmax(-1)\n"
    wide = "y = " + "1 + " * (MAX_CODE_LINE // 4) + "1"  # one line over the limit
    tall = "z = 1\n" * (MAX_CODE_SHOWN // 6 + 1)  # short lines, too many of them
    shown = _shown(plain, ESCAPES, wide, tall)
    assert shown[0] == plain
    for source, page in zip((ESCAPES, wide, tall), shown[1:], strict=True):
        assert page == NOT_SHOWN.format(kind="code", n=len(source))


def test_the_code_shown_on_one_page_is_bounded():
    cell = "w = 1\n" * (MAX_CODE_SHOWN // 6)
    n = MAX_CODE_TOTAL // len(cell) + 2
    shown = _shown(*[cell] * n)
    assert shown.count(cell) == MAX_CODE_TOTAL // len(cell)
    assert sum(map(len, (s for s in shown if s == cell))) <= MAX_CODE_TOTAL


def test_the_red_team_s_cell_colours_in_a_moment():
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    [page] = _shown(ESCAPES)
    cpu = time.process_time()
    highlight(page, PythonLexer(), HtmlFormatter())
    assert time.process_time() - cpu < 1.0  # the page's copy; the original: 7 s or more

"""Red team round 22 (notes: rt22): what the judge does with a submission's *files* is bounded.

1. A fenced block in a learner's markdown named a pygments lexer whose grammar backtracks
   exponentially (```` ```cddl ```` then a quote and 70 backslashes: years): ``grade --gradebook``
   never finished, formgrader's page neither. The judge no longer highlights learner text, and a
   cell with such a fence is stored as literal text in a ```` ```text ```` fence; the notebook's
   ``language_info`` (formgrader's lexer for every code cell) is the release's.
2. A lone surrogate in a notebook's JSON crashed ``grade --gradebook`` for the whole class: the
   autograded notebook is written as every output is (its escape), and a notebook that cannot be
   shown is its student's note only.
3. ``timestamp.txt``'s zone went to dateutil's ``gettz``, which opens a zone named by a path, any
   file on the host, unbounded: the timestamp is read strictly (an IANA key or an offset).
4. Markdown of many ``[`` cost quadratic time in nbconvert's ``strip_files_prefix``: a learner's
   markdown and raw cells are shown up to MAX_SHOWN characters each, MAX_SHOWN_TOTAL in all.
5. Each learner cell with a ``grade_id`` cost a gradebook query: ids the release does not have
   are dropped first, and a notebook of more than MAX_CELLS cells is not shown.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_gradebook import MASKS, row, table
from test_gradebook_inert import formgrader_html
from test_gradebook_round12 import autograded, course_of, solution

from autograder.grade.due import read_timestamp
from autograder.grade.grading import GRADED, _submitted
from autograder.grade.inert import MAX_SHOWN, MAX_SHOWN_TOTAL, harmful_link
from autograder.grade.nbgrader_gradebook import MAX_CELLS, CourseGradebook, sanitised

SLOW_FENCE = '```cddl\n"' + "\\" * 70 + "\n```"  # pygments' cddl lexer: ~1.6x per backslash


@pytest.fixture
def no_highlighting(monkeypatch):
    """pygments is never run on learner text: nbconvert's renderer fails the test if it is."""
    from nbconvert.filters import markdown_mistune
    from pygments.lexers.special import TextLexer

    real = markdown_mistune.highlight

    def plain_only(code, lexer, formatter):
        if type(lexer) is not TextLexer:
            raise AssertionError(f"learner text was highlighted by {lexer}")
        return real(code, lexer, formatter)

    monkeypatch.setattr(markdown_mistune, "highlight", plain_only)


def learner_cells(course, path) -> list:
    """The cells of an autograded notebook that are not the course's own."""
    trusted = CourseGradebook.of(course)._released(MASKS, MASKS)[0]
    ours = trusted | {c.source for c in solution().cells}
    return [c for c in nbformat.read(path, as_version=4).cells if c.source not in ours]


# -- 1. highlighting ------------------------------------------------------------------------------
def test_a_fence_naming_a_lexer_is_never_highlighted_and_is_stored_as_text(
    released, tmp_path, no_highlighting
):
    assert harmful_link(SLOW_FENCE)  # not shown as is
    course = course_of(released, tmp_path)
    nb = solution()
    fenced = (SLOW_FENCE, "```python\nx = 1\n```")
    nb.cells[1:1] = [nbformat.v4.new_markdown_cell(s) for s in fenced]
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("```\nplain\n```\n\n~~~text\nalso\n~~~"))
    target = autograded(course, nb)
    cells = learner_cells(course, target)
    sources = [c.source for c in cells if c.cell_type == "markdown"][:3]
    assert sources[0] == "```\nplain\n```\n\n~~~text\nalso\n~~~"  # no lexer named: as it was
    for source, original in zip(sources[1:], fenced, strict=True):
        assert source.startswith("````text\n") and original in source, source  # literal text


def test_the_notebooks_language_info_is_the_releases(released, tmp_path):
    course = course_of(released, tmp_path)
    nb = solution()
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "cddl"}
    target = autograded(course, nb)
    language = CourseGradebook.of(course)._released(MASKS, MASKS)[2]  # with Python's lexer
    shown = nbformat.read(target, as_version=4).metadata.language_info
    assert language and shown == {**language, "pygments_lexer": "python"}
    assert "cddl" not in target.read_text()


def test_formgrader_shows_the_autograded_notebook_of_a_slow_fence(released, tmp_path):
    course = course_of(released, tmp_path)
    nb = solution()
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(SLOW_FENCE))
    html = formgrader_html(autograded(course, nb))  # years, if pygments ran cddl on it
    assert "\\" * 70 in html


# -- 2. a lone surrogate --------------------------------------------------------------------------
def test_a_lone_surrogate_is_written_escaped_and_the_classmates_are_written(released, tmp_path):
    course = course_of(released, tmp_path)
    submitted = tmp_path / "submitted"
    for who in ("alice", "mallory", "zoe"):
        nb = json.loads(nbformat.writes(solution()))
        if who == "mallory":
            nb["metadata"]["x"] = "\udcff"
        (submitted / who / MASKS).mkdir(parents=True)
        (submitted / who / MASKS / f"{MASKS}.ipynb").write_text(json.dumps(nb))  # ascii: \udcff
    full = {"softmax": 1, "causal_mask": 1}
    rows = [row(w, GRADED, full, notebook=f"{MASKS}.ipynb") for w in ("alice", "mallory", "zoe")]
    written = CourseGradebook.of(course).write(table(tmp_path, *rows), submitted)
    assert (written.submissions, written.autograded) == (3, 3), written.summary()
    mallory = course / "autograded" / "mallory" / MASKS / f"{MASKS}.ipynb"
    assert json.loads(mallory.read_text())["metadata"]["x"] == "\udcff"


def test_a_notebook_that_fails_to_be_written_is_its_students_note(released, tmp_path, monkeypatch):
    from autograder.grade import nbgrader_gradebook

    course = course_of(released, tmp_path)
    submitted = tmp_path / "submitted"
    for who in ("alice", "mallory"):
        (submitted / who / MASKS).mkdir(parents=True)
        nbformat.write(solution(), submitted / who / MASKS / f"{MASKS}.ipynb")
    real = nbgrader_gradebook.write_text

    def fails_for_mallory(path, text):
        if "mallory" in str(path):
            raise OSError("disk full")
        return real(path, text)

    monkeypatch.setattr(nbgrader_gradebook, "write_text", fails_for_mallory)
    rows = [row(w, GRADED, {"softmax": 1}, notebook=f"{MASKS}.ipynb") for w in ("alice", "mallory")]
    written = CourseGradebook.of(course).write(table(tmp_path, *rows), submitted)
    assert (written.submissions, written.autograded) == (2, 1)
    assert f"mallory/{MASKS}: disk full" in written.summary(), written.summary()


# -- 3. timestamp.txt -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, utc",
    [
        ("2026-12-02 09:30:00.000000 UTC", datetime(2026, 12, 2, 9, 30)),  # nbgrader's own
        ("2026-12-02 09:30:00", datetime(2026, 12, 2, 9, 30)),
        ("2026-12-02 10:30:00.500000 CET", datetime(2026, 12, 2, 9, 30, 0, 500000)),
        ("2026-07-02 11:30:00 Europe/Paris", datetime(2026, 7, 2, 9, 30)),
        ("2026-12-02 04:30:00 EST", datetime(2026, 12, 2, 9, 30)),
        ("2026-12-02 15:00:00 +0530", datetime(2026, 12, 2, 9, 30)),
        ("2026-12-02 04:30:00 -05:00", datetime(2026, 12, 2, 9, 30)),
    ],
)
def test_timestamps_nbgrader_writes_are_read_in_utc(text, utc):
    assert read_timestamp(text) == utc


@given(
    st.datetimes(min_value=datetime(2000, 1, 2), max_value=datetime(2099, 12, 30)),
    st.integers(-14 * 60, 14 * 60),
)
def test_an_offset_is_subtracted(when, minutes):
    sign, hours, mins = "-" if minutes < 0 else "+", abs(minutes) // 60, abs(minutes) % 60
    text = f"{when:%Y-%m-%d %H:%M:%S.%f} {sign}{hours:02d}{mins:02d}"
    assert read_timestamp(text) == when - timedelta(minutes=minutes)


@pytest.mark.parametrize(
    "zone", ["/etc/shadow", "/proc/self/cwd/zone", "../../../etc/passwd", "Europe", "CEST", "a/"]
)
def test_a_zone_that_is_no_key_of_the_zone_database_is_never_opened(tmp_path, monkeypatch, zone):
    from dateutil import tz

    def refused(*args, **kwargs):
        raise AssertionError("a learner's zone went to dateutil's gettz")

    monkeypatch.setattr(tz, "gettz", refused)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "zone").write_bytes(b"TZif" + b"\0" * 60)
    (tmp_path / "timestamp.txt").write_text(f"2026-12-01 10:00:00 {zone}")
    when, problem = _submitted(tmp_path)  # why it could not be read (the note is made of it)
    assert when is None and zone in problem, problem


# -- 4. long markdown -----------------------------------------------------------------------------
def test_long_learner_markdown_is_not_rendered_and_says_where_it_is(released, tmp_path):
    course = course_of(released, tmp_path)
    nb = solution()
    brackets = "[" * 20000 + "a" + "](b)" * 20000  # minutes in strip_files_prefix
    notes = [f"note {i} " + "x" * (MAX_SHOWN - 10) for i in range(MAX_SHOWN_TOTAL // MAX_SHOWN + 1)]
    nb.cells[1:1] = [nbformat.v4.new_markdown_cell(s) for s in [brackets, "short", *notes]]
    nb.cells.insert(1, nbformat.v4.new_raw_cell("[" * (MAX_SHOWN + 1)))
    cells = learner_cells(course, autograded(course, nb))
    sources = [c.source for c in cells][: 3 + len(notes)]
    where = "not shown here: it is in the submitted notebook"
    assert sources[0] == f"(a raw cell of {MAX_SHOWN + 1} characters, {where})"
    assert sources[1].startswith("(a markdown cell of 100001 characters, not shown")
    assert sources[2] == "short"
    assert sources[3:-1] == notes[:-1]  # shown until the notebook's total is reached
    assert sources[-1].startswith(f"(a markdown cell of {len(notes[-1])} characters, not shown")


# -- 5. grade ids ---------------------------------------------------------------------------------
def test_grade_ids_the_release_does_not_have_are_dropped(released, tmp_path, monkeypatch):
    from nbgrader.api import Gradebook

    asked = []
    real = Gradebook.find_source_cell
    monkeypatch.setattr(
        Gradebook, "find_source_cell", lambda gb, *a, **k: asked.append(a) or real(gb, *a, **k)
    )
    course = course_of(released, tmp_path)
    nb = solution()
    nb.cells[1:1] = [
        nbformat.v4.new_markdown_cell("", metadata={"nbgrader": {"grade_id": f"forged{i}"}})
        for i in range(200)
    ]
    target = autograded(course, nb)
    assert asked and not [a for a in asked if str(a[0]).startswith("forged")], asked[:3]
    cells = learner_cells(course, target)
    assert len([c for c in cells if c.source == ""]) >= 200  # shown, as plain cells


def test_a_notebook_of_too_many_cells_is_not_shown(released):
    nb = solution()
    nb.cells += [nbformat.v4.new_markdown_cell("") for _ in range(MAX_CELLS)]
    resources = {"db_url": f"sqlite:///{released / 'gradebook.db'}", "assignment": MASKS}
    with pytest.raises(ValueError, match=f"more than the {MAX_CELLS} shown"):
        sanitised(nbformat.writes(nb), resources | {"notebook": MASKS})

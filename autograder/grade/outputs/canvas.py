"""The class's totals as Canvas's gradebook imports them (``<out stem>_canvas.csv``).

Canvas imports the shape of its own gradebook export (Grades > Import): the columns ``Student``,
``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, then one column per assignment, and a
``Points Possible`` row under the header. A student is matched by one of the identifiers; here
the nbgrader student id goes into ``SIS Login ID`` (and ``Student``), ``ID`` (Canvas's own
number, which this grader cannot know) stays empty. An assignment column whose name is not a
Canvas assignment yet is offered as a new assignment on import; rename the column to the Canvas
assignment's name to fill that one instead. Totals are the grade table's (after late penalties,
with an instructor's manual scores when a gradebook was given), 0 where nothing was submitted.
"""

from __future__ import annotations

from pathlib import Path

from autograder.grade.outputs import files
from autograder.grade.outputs.table import csv_cell

IDENTIFIERS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def write(path: Path, table: list[dict[str, str]]) -> Path:
    """The Canvas CSV from the grade table's rows (cells as read by ``read_table``)."""
    assignments = sorted({r["assignment"] for r in table})
    totals: dict[str, dict[str, str]] = {}
    maxima: dict[str, str] = {}
    for r in table:
        totals.setdefault(r["student"], {})[r["assignment"]] = r["total"]
        maxima[r["assignment"]] = r.get("max", "")
    lines = [
        [*IDENTIFIERS, *assignments],
        ["Points Possible", "", "", "", "", *(maxima[a] for a in assignments)],
    ]
    for student in sorted(totals):
        name = csv_cell(student)
        cells = [totals[student].get(a, "") for a in assignments]
        lines.append([name, "", "", name, "", *cells])
    return files.write_csv(path, lines)

"""Exports for a learning-management system.

- Gradescope: ``results.json`` per submission, in the format of Gradescope's autograder
  specification (https://gradescope-autograders.readthedocs.io/en/latest/specs/): a top-level
  ``score``, which Gradescope takes as the submission's score (after any late penalty), and one
  test per exercise and question with its ``name``, ``score``, ``max_score``, ``status``
  (``passed``/``failed``) and ``output``. Written to ``<dir>/<student>/<assignment>/results.json``,
  for an autograder that uploads it, or a script that reads it.
- A gradebook CSV: one row per student, ``username`` then one column per assignment holding its
  total (the grade table's ``total``, so 0 where nothing was submitted). That is the shape of
  Moodle's "Import grades: CSV file" (map ``username`` to the user's username or ID number, and
  each assignment column to its grade item). Canvas has its own: :mod:`.canvas`.

With a gradebook, the scores are the gradebook's (see
:func:`autograder.grade.outputs.write.write_outputs`):
a test whose score an instructor set in formgrader says so, and ``extra_data.manual`` lists them.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder.grade import messages
from autograder.grade.outputs import files, wording
from autograder.grade.outputs.table import csv_cell
from autograder.grade.results import NOT_SUBMITTED, Graded, safe_name
from autograder.i18n import _
from autograder.sandbox.protocol import one_line


def _test(r, g: Graded) -> dict:
    """One test, in the words of the student's feedback (``wording``), in the course's language;
    its ``status`` is Gradescope's (``passed``/``failed``)."""
    said = wording.item(r, g)
    output = [r.message]  # "all checks passed" too: Gradescope shows no verdict of its own
    if r.exercise in g.manual:
        output.insert(0, _("Score: {score}").format(score=said.points))
    output += [line for line in (said.hint, said.reread) if line]
    name = messages.aside(said.name, r.exercise) if r.exercise.startswith("answer_") else said.name
    return {
        "name": name,
        "score": r.points,
        "max_score": r.max_points,
        "status": "passed" if r.passed else "failed",
        "output": "\n".join(line for line in output if line),
    }


def gradescope_results(g: Graded) -> dict:
    """Gradescope's ``results.json`` for one submission. Tests sum to ``score`` plus the late
    penalty, and their ``max_score`` to the assignment's maximum (one failed test holds the
    whole maximum when the submission could not be judged). What the student reads (the
    output, the tests' names and outputs) is the feedback's sentences, in the course's
    language; the ids (``status``, ``extra_data``) stay as Gradescope and scripts read them."""
    tests = [_test(r, g) for r in g.results]
    if not tests:
        why = messages.error(g) or _("nothing was submitted")
        tests = [
            {
                "name": one_line(g.notebook or g.assignment),
                "score": 0.0,
                "max_score": g.max_points,
                "status": "failed",
                "output": _("Could not be graded: {problem}").format(problem=one_line(why)),
            }
        ]
    # the feedback's first line (notebook, status); a late one's note names its penalty; a note
    # can quote a learner's file: one line each
    template, fields = wording.header(g)
    output = [template.format(**fields), *map(one_line, messages.notes(g))]
    return {
        "score": g.total,
        "output": "\n".join(output),
        "tests": tests,
        "extra_data": {
            "student": g.student,
            "assignment": g.assignment,
            "status": g.status,
            "max_points": g.max_points,
            "penalty": g.penalty,
            "manual": sorted(g.manual),  # items whose score an instructor set in formgrader
        },
    }


def write_gradescope(folder: Path, rows: list[Graded]) -> Path:
    """``results.json`` for each submission graded now (none where nothing was submitted)."""
    for g in rows:
        if g.status == NOT_SUBMITTED:
            continue
        path = folder / safe_name(g.student) / safe_name(g.assignment) / "results.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_text(
            path, json.dumps(gradescope_results(g), indent=1, ensure_ascii=False) + "\n"
        )
    return folder


def write_lms_csv(path: Path, table: list[dict[str, str]]) -> Path:
    """The gradebook CSV from the grade table's rows (cells as read by ``read_table``)."""
    assignments = sorted({r["assignment"] for r in table})
    totals: dict[str, dict[str, str]] = {}
    for r in table:
        totals.setdefault(r["student"], {})[r["assignment"]] = r["total"]
    lines = [["username", *assignments]]
    for student in sorted(totals):
        lines.append([csv_cell(student), *(totals[student].get(a, "") for a in assignments)])
    return files.write_csv(path, lines)

"""Write everything a graded class produces (listed in ``autograder.grade.outputs``)."""

from __future__ import annotations

from pathlib import Path

from autograder.grade.outputs import class_report, details, exports, feedback, table
from autograder.grade.results import GradeTable


def sibling(out: Path, suffix: str) -> Path:
    """``grades.csv`` -> ``grades<suffix>`` in the same folder."""
    return out.with_name(out.stem + suffix)


def write_outputs(graded: GradeTable, keep: list[dict[str, str]], regrading: bool) -> None:
    """Write everything listed above. ``keep``: the earlier table's rows not regraded now;
    ``regrading``: only some students or assignments were graded, the rest come from before.

    The table and the text feedback come first; should a later output fail, the grades are
    safe and the table's notes say what is missing and why."""
    table.write_csv(graded, keep)
    table.write_feedback(graded)
    rows = table.read_table(graded.out)
    everyone = details.update(sibling(graded.out, "_results.json"), graded.rows, regrading)
    outputs = {
        "HTML feedback": lambda: feedback.write_html(graded),
        "class report": lambda: class_report.write(
            sibling(graded.out, "_report.html"), everyone, graded, rows
        ),
        "Gradescope results": lambda: exports.write_gradescope(
            sibling(graded.out, "_gradescope"), graded.rows
        ),
        "LMS gradebook CSV": lambda: exports.write_lms_csv(sibling(graded.out, "_lms.csv"), rows),
    }
    for name, write in outputs.items():
        try:
            graded.outputs[name] = write()
        except Exception as e:  # the grades are written; say what is missing, keep the rest
            graded.notes.append(f"the {name} could not be written: {type(e).__name__}: {e}")

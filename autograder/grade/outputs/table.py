"""The grade table (CSV) and the plain-text feedback (one ``.txt`` per student and assignment)."""

from __future__ import annotations

import csv
import re
import textwrap
from pathlib import Path

from autograder import i18n
from autograder.core.result import printable
from autograder.grade import messages
from autograder.grade.outputs import files, wording
from autograder.grade.results import (
    NOT_SUBMITTED,
    Graded,
    GradeError,
    GradeTable,
    lesson_of,
    notebook_order,
    safe_name,
)
from autograder.i18n import _
from autograder.sandbox.protocol import one_line

# A cell starting like a formula gets a quote first, and so does one that starts with a quote,
# so that reading the table back (``_unescape``) gives every name exactly as it was: '-bob and
# -bob stay two students (red team round 14).
QUOTED = ("=", "+", "-", "@", "\t", "\r", "'")


def csv_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula gets a quote first."""
    return "'" + text if text[:1] in QUOTED else text


FIXED = ["student", "assignment", "status"]
# ``unread_cells``: how many cells of the notebook the grader could not read (a syntax error...),
# empty when none, so that an instructor finds those notebooks in the table (a trial: only the
# summary, the report and the feedback said so, the status being plain ``graded``)
TAIL = ["penalty", "total", "max", "submitted", "manual", "unread_cells"]


def manual_text(g: Graded) -> str:
    """The items whose points an instructor set in formgrader: ``padding_mask=0.5 (grader 0)``."""
    points = {r.exercise: r.points for r in g.results}
    return "; ".join(
        f"{item}={points.get(item, 0):g} (grader {auto:g})" for item, auto in g.manual.items()
    )


def as_row(g: Graded) -> dict[str, str]:
    row = {"student": g.student, "assignment": g.assignment, "status": g.status}
    row.update({r.exercise: f"{r.points:g}" for r in g.results})
    row["penalty"] = f"{g.penalty:g}" if g.penalty else ""
    row["total"], row["max"] = f"{g.total:g}", f"{g.max_points:g}"
    row["submitted"] = f"{g.submitted:%Y-%m-%d %H:%M:%S} UTC" if g.submitted else ""
    row["manual"] = manual_text(g)
    row["unread_cells"] = str(g.unread) if g.unread else ""
    return row


# A name that is not UTF-8 (a lone surrogate, as ``os.fsdecode`` reads it) is written as its
# escape (``files.write_text``); reading the table back turns it into the same name again, so a
# regrade of that student replaces its row.
SURROGATE_ESCAPE = re.compile(r"\\u(d[89a-f][0-9a-f]{2})")


def _unescape(text: str) -> str:
    text = SURROGATE_ESCAPE.sub(lambda m: chr(int(m[1], 16)), text)
    return text[1:] if text[:1] == "'" and text[1:2] in QUOTED else text


def write_csv(table: GradeTable, keep: list[dict[str, str]]) -> None:
    """The table: ``keep`` (rows of an earlier run not regraded) and this run's rows, sorted."""
    rows = keep + [as_row(g) for g in table.rows]
    rows.sort(key=lambda r: (r["student"], r["assignment"]))
    items = []
    for name in sorted({r["assignment"] for r in rows}):
        lesson = lesson_of(name)
        items += [i for i in notebook_order(lesson) if i not in items] if lesson else []
    extra = sorted({k for r in rows for k in r} - set(FIXED + TAIL + items))
    columns = FIXED + items + extra + TAIL
    table.out.parent.mkdir(parents=True, exist_ok=True)
    lines = [columns, *([csv_cell(r.get(c, "")) for c in columns] for r in rows)]
    files.write_csv(table.out, lines)


# ``submitted`` as an earlier grader wrote it, without its zone (it was UTC, unlabelled)
UNLABELLED = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\Z")


def read_table(path: Path) -> list[dict[str, str]]:
    """The rows of an earlier table (cells as they were before escaping; an earlier grader's
    unlabelled ``submitted`` time labelled UTC, as this one writes it)."""
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        rows = [{k: _unescape(v) for k, v in row.items()} for row in csv.DictReader(f)]
    for row in rows:
        if UNLABELLED.match(row.get("submitted") or ""):
            row["submitted"] += " UTC"
    if rows and not {"student", "assignment"} <= set(rows[0]):
        raise GradeError(
            _(
                "{path}: not a grade table of this grader (no student and assignment "
                "columns); give another --out or remove it"
            ).format(path=path)
        )
    return rows


def feedback_text(g: Graded) -> str:
    """The plain-text feedback of one submission, in the current language: the page's sentences
    (``wording``), one after another. Only these lines start at the margin or with a verdict:
    what the grader found (which can quote what learner code returned) and the notes are
    printable text, indented, so a learner's code cannot forge or hide a line."""
    lines = [wording.title(g)]
    if g.status == NOT_SUBMITTED:
        error = messages.error(g)
        said = (
            _("Nothing was submitted ({why}).").format(why=one_line(error))
            if error
            else _("Nothing was submitted.")
        )
        template, fields = wording.score(g)
        return "\n".join([*lines, said, template.format(**fields)]) + "\n"
    template, fields = wording.header(g)
    lines.append(template.format(**fields))
    template, fields = wording.score(g)
    lines.append(template.format(**fields))
    problem = wording.problem(g)
    if problem:
        lines.append(one_line(problem))
    said = wording.items(g)
    names = max((i18n.cells(it.name) for it in said), default=0)
    verdicts = max((i18n.cells(it.verdict) for it in said), default=0)
    for it in said:
        verdict, name = i18n.ljust(it.verdict, verdicts), i18n.ljust(it.name, names)
        lines.append(f"  {verdict}  {name}  {it.points}".rstrip())
        if it.message:
            lines.append(_indent(printable(it.message)))
        lines += [_indent(i18n.fill(one_line(s), 92)) for s in (it.hint, it.reread) if s]
    notes = wording.notes(g)
    if notes:
        lines.append(_("Notes"))
        lines += [f"  - {one_line(note)}" for note in notes]
    return "\n".join(lines) + "\n"


def _indent(text: str) -> str:
    return textwrap.indent(text, "      ")


def write_feedback(table: GradeTable) -> None:
    for g in table.rows:
        folder = table.feedback_dir / safe_name(g.student)
        folder.mkdir(parents=True, exist_ok=True)
        files.write_text(folder / f"{safe_name(g.assignment)}.txt", feedback_text(g))

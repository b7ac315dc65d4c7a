"""Every result of every submission, as JSON (``<out stem>_results.json``).

The CSV keeps points only; the class report also needs each failure's message and named mistake.
A regrade of some students or assignments merges its rows with the earlier ones kept here, as the
CSV does, so that the report and the exports still cover the whole class.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, fields
from datetime import datetime
from pathlib import Path

from autograder.core.result import Result
from autograder.grade.outputs import files
from autograder.grade.results import Graded

VERSION = 1


def to_json(g: Graded) -> dict:
    row = asdict(g)
    row["results"] = [
        {**r.to_json(), "attempted": r.attempted, "unread": r.unread} for r in g.results
    ]
    row["submitted"] = g.submitted.isoformat() if g.submitted else None
    row["due"] = g.due.isoformat() if g.due else None
    return row


def from_json(row: dict) -> Graded:
    results = [Result(**r) for r in row.pop("results")]
    when, due = row.pop("submitted"), row.pop("due", None)
    known = {f.name for f in fields(Graded)}
    g = Graded(
        **{k: v for k, v in row.items() if k in known},
        results=results,
        submitted=datetime.fromisoformat(when) if when else None,
        due=datetime.fromisoformat(due) if due else None,
    )
    return _without_said_lateness(g)


# The notes on lateness that an earlier grader kept with a row, in English (now made from the
# row's fields where they are shown, in the reader's language: ``grade/messages.py``).
_STAMP_UNREAD = re.compile(r"timestamp\.txt could not be read \((.*)\); lateness not checked\Z")
_LATE = re.compile(r"submitted \S+ \S+ UTC, .* after the due date \(.*\); (late penalty|no pen)")


def _without_said_lateness(g: Graded) -> Graded:
    kept = []
    for note in g.notes:
        unread = _STAMP_UNREAD.match(note)
        if unread:
            g.timestamp_problem = g.timestamp_problem or unread[1]
        elif note != "no timestamp.txt in the submission: lateness not checked" and not (
            _LATE.match(note) and g.due and g.submitted
        ):
            kept.append(note)
    g.notes = kept
    return g


def load(path: Path) -> list[Graded]:
    """The rows saved in ``path``; none when it is missing or not one of ours (the report then
    says which rows of the table it lacks)."""
    try:
        data = json.loads(path.read_text())
        if data.get("version") != VERSION:
            return []
        return [from_json(row) for row in data["rows"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def update(path: Path, rows: list[Graded], regrading: bool, overlay=None) -> list[Graded]:
    """Save ``rows`` (with, when ``regrading``, the earlier rows they do not replace) and return
    them all, sorted by student and assignment. ``overlay(rows)``, when given, first sets their
    scores to what the gradebook holds (manual scores, late penalties)."""
    now = {(g.student, g.assignment) for g in rows}
    earlier = [g for g in load(path) if (g.student, g.assignment) not in now] if regrading else []
    everyone = sorted(earlier + rows, key=lambda g: (g.student, g.assignment))
    if overlay is not None:
        overlay(everyone)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": VERSION, "rows": [to_json(g) for g in everyone]}
    files.write_text(path, json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n")
    return everyone

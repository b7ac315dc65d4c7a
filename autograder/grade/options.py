"""The options of ``grade`` read and checked before anything is graded: the due dates (the
command line's and ``nbgrader_config.py``'s, see :mod:`autograder.grade.due`), the late penalty
and the assignments named; a bad one is a :class:`GradeError` in the reader's language."""

from __future__ import annotations

import difflib
from datetime import datetime
from pathlib import Path

from autograder.grade.due import DueError, read_dues
from autograder.grade.due import parse_due as read_due
from autograder.grade.results import GradeError, did_you_mean, lesson_of, released
from autograder.i18n import _


def parse_due(text: str) -> datetime:
    """A due date as nbgrader reads one ("2026-12-01 23:59:00 UTC", "Dec 1 2026"...), in UTC."""
    try:
        return read_due(text)
    except DueError as e:
        raise GradeError(str(e)) from e


def due_dates(given: list[str] | None, config: Path | None) -> dict[str | None, datetime]:
    """Due dates by assignment (``None``: every assignment), from ``nbgrader_config.py``'s
    ``c.Autograder.due_dates = {"04_softmax_masks": "2026-12-01 23:59 UTC"}`` and then the
    command line's ``--due [ASSIGNMENT=]DATE``, which wins (see :mod:`autograder.grade.due`)."""
    configured = None
    if config is not None and config.is_file():
        from traitlets.config.loader import PyFileConfigLoader

        try:
            loaded = PyFileConfigLoader(config.name, path=str(config.parent)).load_config()
        except Exception as e:  # the instructor's own Python: whatever it raises, say where
            why = f"{type(e).__name__}: {e}"
            raise GradeError(
                _("{file}: cannot be read ({why})").format(file=config, why=why)
            ) from e
        if "due_dates" in loaded.Autograder:
            configured = loaded.Autograder.due_dates
            if not isinstance(configured, (dict, str)):
                raise GradeError(
                    _(
                        "{file}: c.Autograder.due_dates must map assignments to dates, e.g. "
                        "{example}"
                    ).format(file=config, example="{'04_softmax_masks': '2026-12-01 23:59 UTC'}")
                )
    try:
        return read_dues(given, configured)
    except DueError as e:
        raise GradeError(str(e)) from e


def check_options(
    due_given: list[str] | None,
    config: str | Path | None,
    late_penalty: float | None,
    assignments: list[str] | None,
) -> dict[str | None, datetime]:
    """Refuse bad options before anything is graded; the due dates they give."""
    if late_penalty is not None and not 0.0 <= late_penalty <= 1.0:
        raise GradeError(
            _("the late penalty is a fraction of the points, 0 to 1; got {penalty}").format(
                penalty=late_penalty
            )
        )
    for name in assignments or []:
        if lesson_of(name) is None:
            close = difflib.get_close_matches(name, sorted(released()), n=1)
            said = _(
                "{name}: not an assignment of the course (its folder name starts with the "
                "lesson number, e.g. 04_softmax_masks)"
            ).format(name=name)
            raise GradeError(said + did_you_mean(close))
    return due_dates(due_given, Path(config) if config else None)

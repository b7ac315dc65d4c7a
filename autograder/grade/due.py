"""Due dates as ``grade`` reads them: ``--due [ASSIGNMENT=]DATE`` and ``c.Autograder.due_dates``.

Light on purpose (no torch, no sandbox): the command line reads them before any grading starts,
so that a bad date or an unknown assignment is refused at once.

A date is read as nbgrader reads one (``nbgrader db assignment add --duedate``): dateutil's
formats ("2026-12-01 17:00:00 UTC", "Dec 1 2026", ISO 8601), or nbgrader's "DATE TIME ZONE" with
a zone name ("2026-11-24 12:00:00 Europe/Paris"); without a zone it is UTC. Dates are returned
as naive UTC datetimes, as nbgrader stores them.
"""

from __future__ import annotations

import re
import warnings
from datetime import datetime, timezone

from autograder.grade import RELEASE

EXAMPLE = "e.g. '2026-12-01 23:59:00 UTC' or 'Dec 1 2026'"


class DueError(ValueError):
    """A due date that cannot be read, or given for an assignment the course does not have."""


def parse_due(text: str) -> datetime:
    """A due date (see the module's docstring), in UTC, without a time zone."""
    from dateutil import parser

    text = str(text).strip()
    when = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", parser.UnknownTimezoneWarning)  # "EST": not a guess
            when = parser.parse(text)
    except (ValueError, OverflowError, parser.UnknownTimezoneWarning):
        pass
    if when is None:
        try:  # "DATE TIME Europe/Paris", as nbgrader reads it
            when = parse_utc(text)
        except Exception as e:  # whatever nbgrader's reading raises, the date is unreadable
            raise DueError(f"cannot read the due date {text!r} ({e}); give {EXAMPLE}") from e
    if when.tzinfo is not None:
        when = when.astimezone(timezone.utc).replace(tzinfo=None)
    return when


def parse_utc(text: str) -> datetime:
    """nbgrader's own reading of a date (nbgrader imports nbformat: see ``import_nbformat``)."""
    from autograder.core.extract import import_nbformat

    import_nbformat()
    from nbgrader.utils import parse_utc

    return parse_utc(text)


def assignments() -> list[str]:
    """The course's assignments: its released folders (``04_softmax_masks``)."""
    if not RELEASE.is_dir():
        return []
    return sorted(p.name for p in RELEASE.iterdir() if re.match(r"\d\d_", p.name))


def split(item: str) -> tuple[str | None, str]:
    """``04_softmax_masks=Dec 1 2026`` -> (``04_softmax_masks``, ``Dec 1 2026``); a date alone
    (it names no assignment: every assignment) -> (None, the date)."""
    name, sep, when = item.partition("=")
    if sep and re.fullmatch(r"[\w.-]+", name.strip()):
        return name.strip(), when
    return None, item


def read_dues(given: list[str] | None, configured: dict | str | None = None) -> dict:
    """Due dates by assignment (``None``: every assignment) from the config's
    ``c.Autograder.due_dates`` and then the command line's ``--due``, which wins. An assignment
    the course does not have is refused as unknown, naming the ones it has."""
    known = assignments()
    dates: dict[str | None, datetime] = {}

    def check(name: str | None, where: str) -> None:
        if name is not None and known and name not in known:
            raise DueError(
                f"{where}: {name!r} is not an assignment of the course (it has "
                f"{', '.join(known)}); a due date for every assignment is given without a name"
            )

    if isinstance(configured, str):  # one date for every assignment
        configured = {None: configured}
    for name, when in (configured or {}).items():
        check(name, "c.Autograder.due_dates")
        dates[name] = parse_due(when)
    for item in given or []:
        name, when = split(item)
        check(name, f"--due {item!r}")
        dates[name] = parse_due(when)
    return dates

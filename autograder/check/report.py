"""How results are shown: one line per exercise for people, one JSON object for tools."""

from __future__ import annotations

import json
import textwrap

from autograder.core.mistakes import looks_like
from autograder.core.result import _CONTROL, Result, printable
from autograder.i18n import _, fill
from autograder.sandbox.protocol import one_line


def mistake_line(mistake: str | None) -> str | None:
    """'Looks like: <title> [id]. <hint>' for a catalogue id, or None."""
    if mistake is None:
        return None
    return looks_like(mistake) or _("Looks like: [{id}]").format(id=mistake)


def passing_note(r: Result) -> str | None:
    """A passed result's message where it carries a note (an ``assert`` accepted where the
    course raises ValueError), else None: what a report shows under its PASS line."""
    return r.message if r.passed and r.message and r.message != _("all checks passed") else None


def _indent(text: str, prefix: str = "      ") -> str:
    return textwrap.indent(text, prefix)


def human(file: str, results: list[Result], notes: list[str] = ()) -> str:
    """The report a learner reads in a terminal.

    Only the report writes lines that start at the margin or with ``PASS``/``FAIL``: everything
    else (messages, which can quote what learner code returned, and notes) is printable text,
    indented under the exercise it belongs to, so learner code cannot forge or hide a line.
    """
    width = max(len(r.exercise) for r in results)
    lines = [one_line(file)]  # a file name may hold a newline: one line, never a forged one
    for r in results:
        status = _("PASS") if r.passed else _("FAIL")
        lines.append(f"  {status}  {r.exercise:<{width}}  {r.points:g}/{r.max_points:g}")
        if not r.passed:
            lines.append(_indent(printable(r.message)))
            hint = mistake_line(r.mistake)
            if hint:
                lines.append(_indent(fill(hint, 92)))
        elif passing_note(r):
            lines.append(_indent(printable(r.message)))
    lines += [_indent(_("Note: {note}").format(note=one_line(note)), "  ") for note in notes]
    score = sum(r.points for r in results)
    total = sum(r.max_points for r in results)
    passed = sum(r.passed for r in results)
    lines.append(
        _("Score: {score}/{total} ({passed} of {count} passed)").format(
            score=f"{score:g}", total=f"{total:g}", passed=passed, count=len(results)
        )
    )
    return "\n".join(lines)


def dumps(data: dict, **options) -> str:
    """JSON a person can read in any language: UTF-8 text as it is (the Chinese messages, not
    ``\\u6240...``), every character that could act on a terminal instead of being read (the
    controls, bidirectional marks and lone surrogates :func:`printable` escapes) as its ``\\u``
    escape. JSON's own characters are ASCII, so those can only be inside strings: still JSON."""
    text = json.dumps(data, ensure_ascii=False, **options)
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def as_json(file: str, results: list[Result]) -> str:
    """The contract's JSON object."""
    return dumps(
        {
            "file": file,
            "score": float(sum(r.points for r in results)),
            "max_score": float(sum(r.max_points for r in results)),
            "results": [r.to_json() for r in results],
        },
        indent=2,
    )

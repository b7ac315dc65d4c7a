"""Notes a check leaves on a result that passed: something accepted that the course would write
differently (an ``assert`` where the course raises ``ValueError``). A note never costs points.

The judge starts each exercise with :func:`start` and adds :func:`take`'s notes to the message.
"""

from __future__ import annotations

from contextvars import ContextVar

_NOTES: ContextVar[list[str] | None] = ContextVar("notes", default=None)


def start() -> None:
    """Begin an exercise with no notes (each judging thread has its own)."""
    _NOTES.set([])


def note(text: str) -> None:
    """Leave a note on the current exercise's result (said once however often it is left)."""
    notes = _NOTES.get()
    if notes is None:
        notes = []
        _NOTES.set(notes)
    if text not in notes:
        notes.append(text)


def take() -> list[str]:
    """The notes left since :func:`start`, cleared."""
    notes = _NOTES.get() or []
    _NOTES.set([])
    return notes

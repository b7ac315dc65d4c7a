"""What judging an exercise gives: a :class:`Result`, its message made safe to print
(:func:`printable`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Characters that would let a message act on the terminal or the page instead of being read:
# C0/C1 controls (ESC starts the sequences that hide or move text; CR rewrites a line), and the
# invisible bidirectional and zero-width formatting characters, the Unicode line and paragraph
# separators, and lone surrogates (a file name that is not UTF-8, as ``os.fsdecode`` reads it: no
# file or terminal can hold one). Newlines stay: messages have lines. A name is shown on one line:
# ``autograder.sandbox.protocol.one_line``.
_CONTROL = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069"
    "\u061c\u2060-\u2064\ufeff\u2028\u2029\ud800-\udfff]"
)


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``) instead of acting."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], str(text))


# The mistake of an exercise the grader could not judge (its sandbox did not start): not the
# learner's; ``grade`` judges the notebook again in a fresh sandbox, then names what is left.
NOT_JUDGED = "not-judged"
# The mistake of code that tried to change the grader or its results (the sandbox stopped it).
TAMPERING = "tampering"

MAX_MESSAGE = 4000  # characters of a result's message


@dataclass(frozen=True)
class Result:
    exercise: str
    passed: bool
    points: float
    max_points: float
    message: str
    mistake: str | None
    # False when there was nothing to judge: not defined, not answered, or still the blank stub
    # (``raise NotImplementedError``). Not part of the contract's JSON.
    attempted: bool = field(default=True, compare=False)
    # True when a cell the grader could not read is behind the failure: the item is defined in
    # it, or a NameError where it was not read (the import cell). The class report counts such
    # failures once, at that cell. Not part of the contract's JSON either.
    unread: bool = field(default=False, compare=False)

    def __post_init__(self):
        # Points are floats whatever the registry says (the contract's JSON has one type), and
        # messages, which can quote what learner code returned, are made safe to print.
        object.__setattr__(self, "points", float(self.points))
        object.__setattr__(self, "max_points", float(self.max_points))
        # cut: a check may quote a learner's value whole (red team round 19: 14.5 MB for one)
        message = printable(self.message)
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE] + " …"
        object.__setattr__(self, "message", message)

    def to_json(self) -> dict:
        """The contract's result object, exactly."""
        return {
            "exercise": self.exercise,
            "passed": self.passed,
            "points": self.points,
            "max_points": self.max_points,
            "message": self.message,
            "mistake": self.mistake,
        }

"""A lesson's graded items (its exercises and questions) with their points, computed once.

The judge (``core/assignment.py``), ``progress``, the grade table (``grade/results.py``) and the
nbgrader gradebook read them from here. This module imports only the contract (the questions
on first use), so that knowing what a lesson is worth costs no check, kit or sandbox import.
"""

from __future__ import annotations

from autograder.contract import CONTRACT


def lesson_items(lesson: str) -> dict[str, float]:
    """A lesson's graded items, in the order they are graded, each with its points: the
    contract's exercises of the lesson (contract order), then ``answer_<id>`` for each of its
    questions (``<lesson>_n``, as its ``questions.py`` lists them). ``lesson``: its number
    (``"04"``) or its folder (``"04_softmax_masks"``).

    The one place a lesson's items are computed (see the module's docstring for who reads it)."""
    from autograder.questions import QUESTIONS

    number = lesson[:2]
    items = {e.name: float(e.points) for e in CONTRACT if e.lesson[:2] == number}
    for qid, question in QUESTIONS.items():
        if qid.split("_")[0] == number:
            items[f"answer_{qid}"] = float(question.points)
    return items

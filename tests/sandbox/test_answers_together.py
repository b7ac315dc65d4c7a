"""A submission's answers to the lessons' questions are read out of the sandbox in one process
(``autograder.core.judge``), not one process each: the same results, and an answer that fails
(or stops the process) fails alone, with the words it had when each had its own process."""

from __future__ import annotations

import pytest

from autograder.core import judge
from autograder.core.judge import judge_source
from autograder.sandbox.host.submission import Submission

ANSWERS = """
answer_04_1 = 21
answer_04_2 = "b"
answer_04_3 = 65504
answer_04_4 = (3, 5, 5)
"""

STOPS = """
class Stop:
    def __repr__(self):
        __import__("os")._exit(3)

    __str__ = __repr__


answer_04_1 = 21
answer_04_2 = Stop()
answer_04_3 = 1
answer_04_4 = (3, 5, 5)
"""


def _judged(source: str, monkeypatch, together: bool):
    begun: list[str] = []
    real_begin = Submission.begin

    def begin(self, exercise):
        begun.append(exercise.name)
        return real_begin(self, exercise)

    with monkeypatch.context() as m:
        m.setattr(Submission, "begin", begin)
        if not together:  # every answer in its own process, as before
            m.setattr(judge, "_read_answers_together", lambda sub, ids: {})
        results = judge_source(source, questions=True)
    seen = [(r.exercise, r.passed, r.points, r.message, r.mistake) for r in results]
    return seen, begun


@pytest.mark.parametrize("source", [ANSWERS, STOPS], ids=["answers", "one-stops-the-process"])
def test_answers_read_together_give_what_one_process_each_gave(source, monkeypatch):
    together, begun = _judged(source, monkeypatch, together=True)
    alone, begun_alone = _judged(source, monkeypatch, together=False)
    assert together == alone
    assert begun_alone == ["answer_04_1", "answer_04_2", "answer_04_3", "answer_04_4"]
    if source == ANSWERS:
        assert begun == ["answers"]  # one process for the four
        assert [passed for _, passed, *_ in together] == [True] * 4
    else:  # the one that stops it, and those after it, each in its own process
        assert begun == ["answers", "answer_04_2", "answer_04_3", "answer_04_4"]
        assert [passed for _, passed, *_ in together] == [True, False, False, True]


NUMBERS_OF_OTHER_TYPES = """
import enum
from fractions import Fraction

import numpy as np


class Count(enum.IntEnum):
    FOUR = 4


answer_03_1 = np.float64(64)  # a float's subclass
answer_03_2 = Fraction(1, 1)
answer_03_3 = np.log(8)
answer_03_4 = np.str_("b")  # a str's subclass
answer_04_1 = np.int64(21)
answer_04_4 = (3, Count.FOUR + 1, 5)  # an int's subclass in a shape
"""


def test_numbers_and_strings_of_other_types_are_read_as_a_notebook_reads_them():
    """Trials 43 and 44: NumPy's float64 (np.log(8)) and a Fraction passed in the notebook's own
    cell and failed in ``check`` ("a pickle naming numpy._core.multiarray.scalar", "Opaque(...)"):
    the sandbox now sends a subclass of int, float or str as the plain value, and other real
    numbers as an int or a float, as ``questions._as_number`` reads them in a notebook."""
    results = {r.exercise: r for r in judge_source(NUMBERS_OF_OTHER_TYPES, questions=True)}
    for qid in ("03_1", "03_2", "03_3", "03_4", "04_1", "04_4"):
        assert results[f"answer_{qid}"].passed, (qid, results[f"answer_{qid}"].message)


def test_a_value_the_sandbox_cannot_send_is_shown_as_the_learner_would_print_it():
    results = {r.exercise: r for r in judge_source('answer_04_1 = b"21"\n', questions=True)}
    message = results["answer_04_1"].message
    assert "b'21' (bytes)" in message and "Opaque" not in message, message

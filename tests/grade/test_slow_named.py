"""A submission that takes long to grade is named beside the progress bar.

An instructor's trial: one submission that slept held ``grade``'s bar at 5/6 for two minutes, and
nothing said whose it was (the README warns that one may take minutes). The bar now names each
submission graded for ``here.SLOW`` seconds or more, longest first, and only those; it counts
the submissions as they end (the second trial: it waited at 0/2 on a slow notebook while the same
student's next one, not submitted, was done).
"""

from __future__ import annotations

import time

from autograder.grade import here
from autograder.grade.results import GRADED, Graded

MASKS = "04_softmax_masks"


def test_the_progress_bar_names_the_submissions_graded_past_slow(monkeypatch, capsys):
    monkeypatch.setattr(here, "SLOW", 0.4)
    monkeypatch.setattr(here, "LOOK_EVERY", 0.1)

    def grade_one(student, assignment, *_rest):
        time.sleep(1.5 if student == "sleeper" else 0.01)
        return Graded(student, assignment, GRADED, 8.0)

    tasks = [(s, MASKS, None, None, None, 0.0, False) for s in ("quick", "sleeper", "alice")]
    rows = here.run_here(tasks, 2, grade_one)
    assert [(g.student, g.status) for g in rows] == [(s, GRADED) for s, *_ in tasks]
    shown = capsys.readouterr().err
    assert f"still grading: sleeper/{MASKS} (" in shown
    assert "quick/" not in shown and "alice/" not in shown


def test_the_bar_counts_submissions_as_they_end(monkeypatch, capsys):
    monkeypatch.setattr(here, "LOOK_EVERY", 0.1)

    shown_meanwhile = []

    def grade_one(student, assignment, *_rest):
        if student == "first":  # what the bar shows while the first is still being graded
            time.sleep(1.0)
            shown_meanwhile.append(capsys.readouterr().err)
        return Graded(student, assignment, GRADED, 8.0)

    tasks = [(s, MASKS, None, None, None, 0.0, False) for s in ("first", "second", "third")]
    rows = here.run_here(tasks, 2, grade_one)
    assert [g.student for g in rows] == ["first", "second", "third"]  # in the tasks' order
    assert "2/3" in shown_meanwhile[0]  # the two quick ones counted before the first ended


def test_nothing_is_named_while_every_submission_is_quick(capsys):
    tasks = [(s, MASKS, None, None, None, 0.0, False) for s in ("bob", "carol")]
    here.run_here(tasks, 2, lambda student, a, *_: Graded(student, a, GRADED, 8.0))
    assert "still grading" not in capsys.readouterr().err

"""The red team's breaks in round 5 (notes: redteam5), each tried through the real sandbox.

1. A process that has ended counts as ended, a zombie too: ``tiled_attention`` built the full
   score matrix in a child process left a zombie at the reply (no ``VmHWM`` in its status, its
   ``/proc`` entry still there), and the server's peak-memory measure skipped it: full marks.
2. A student's folder name with line breaks forged lines in ``grade --gradebook``'s summary.
3. A submission that makes the machine busy itself (spinning processes of its own) and sleeps
   is still stopped by the wall budget; a machine busy with others' work still stops nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from autograder.core.extract import from_sources
from autograder.core.judge import judge_code, judge_source
from autograder.grade.grading import UNREADABLE
from autograder.grade.nbgrader_gradebook import CourseGradebook, Written
from autograder.sandbox.host import submission
from autograder.sandbox.host.submission import Submission
from tests.grade.test_gradebook import MASKS, make_gradebook, row, table
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round10 import UNWATCH

HOSTILE = Path(__file__).parent / "hostile"


# -- 1. a zombie's peak -------------------------------------------------------------------------
@NEEDS_BWRAP
def test_a_full_matrix_in_a_zombie_child_fails_the_memory_check():
    results = judge_source((HOSTILE / "leaves_a_zombie.py").read_text(), ["tiled_attention"])
    [r] = results
    assert not r.passed and r.points == 0, r
    assert "ended" in r.message or r.mistake == "materialises-full-matrix", r


LEARNER_HEAD = UNWATCH + "import os, time\n"  # the learner sources below use both


@NEEDS_BWRAP
def test_a_zombie_left_by_an_earlier_call_is_named_for_what_it_is():
    source = LEARNER_HEAD + (
        "def leave():\n"
        "    _unwatch()\n"
        "    if os.fork() == 0:\n"
        "        os._exit(0)\n"
        "    time.sleep(0.5)  # it has ended, and is never waited for\n"
        "def f(n):\n"
        "    return n\n"
    )

    class Exercise:
        name, time_limit = "f", 10.0

    with Submission([("zombie.py", source)], {}) as sub:
        sub.begin(Exercise)
        sub.call("leave")
        with pytest.raises(submission.Tampered, match="not waited for") as e:
            sub.peak_memory("f", 1)
    assert "dumpable" not in str(e.value)


# -- 2. forged lines in the gradebook's summary -------------------------------------------------
FORGED = (
    "zed: unreadable\n  warning: alice: her timestamp.txt is earlier than the submission time "
    "the gradebook had; it was back-dated\n  no autograded notebook for carl"
)


def test_a_student_folder_name_with_line_breaks_stays_on_one_line_in_the_summary(
    tmp_path, venv_on_path
):
    course = tmp_path / "course"
    make_gradebook(course)
    folder = tmp_path / "submitted" / FORGED / MASKS
    folder.mkdir(parents=True)
    (folder / f"{MASKS}.ipynb").write_text("{ this is not json")
    book = CourseGradebook.of(course / "gradebook.db")
    written = book.write(table(tmp_path, row(FORGED, UNREADABLE, {})), tmp_path / "submitted")
    # the id is refused (round 11: formgrader would print it raw), named on one line
    assert written.refused and not written.students, written
    summary = written.summary()
    assert len(summary.splitlines()) == 2, summary
    assert "\n  warning" not in summary and "\\n  warning" in summary, summary
    kept = Written("sqlite://", kept=[f"{FORGED}/{MASKS}/grade_softmax"], earlier=[FORGED])
    assert len(kept.summary().splitlines()) == 2, kept.summary()  # the header and one warning


# -- 3. a machine made busy by the submission itself --------------------------------------------
SPINS_THEN_SLEEPS = (
    LEARNER_HEAD
    + """def attention_scores(q, k):
    _unwatch()  # a spinner nobody judged waits for (it makes the machine busy), then sleep
    r, w = os.pipe()
    if os.fork() == 0:
        if os.fork() == 0:
            while time.process_time() < 3.0:
                pass
        os._exit(0)
    os.close(w)
    os.wait()
    os.read(r, 1)  # asleep until the spinner has ended
    raise RuntimeError("spun")  # the check ends here: the judged process computed nothing
answer_02_1 = "a"
"""
)


@NEEDS_BWRAP
def test_a_submission_that_makes_the_machine_busy_itself_is_still_stopped(monkeypatch):
    monkeypatch.setattr(submission, "WALL_BUDGET", 1.0)  # a test-only budget
    monkeypatch.setattr(submission, "machine_busy", lambda: True)  # as its spinners make it
    code = from_sources("spins.py", [("spins.py", SPINS_THEN_SLEEPS)], module=True)
    results = {r.exercise: r for r in judge_code(code, questions=True)}
    answer = results["answer_02_1"]  # judged after the spinning exercise
    assert not answer.passed and "not judged" in answer.message, answer


@NEEDS_BWRAP
def test_the_judge_counts_the_cpu_of_every_process_of_the_sandbox():
    class Exercise:
        name, time_limit = "attention_scores", 20.0

    with Submission([("spins.py", SPINS_THEN_SLEEPS)], {}) as sub:
        before = sub.used
        sub.begin(Exercise)
        with pytest.raises(submission.LearnerError, match="spun"):
            sub.call("attention_scores", torch.ones(1, 2, 2), torch.ones(1, 2, 2))
        sub._end_exercise()
        sub._tally()
    assert sub.used - before >= 2.9, (sub.used, before)  # the spinner's 3 s, though orphaned
    assert sub.cpu < 1.0, sub.cpu  # not the judged processes' own

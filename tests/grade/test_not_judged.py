"""An exercise whose sandbox did not start is the grader's fault, never a silent 0 (issue 20,
red team round 28: a classmate's long parse starved the judge's threads and a correct notebook
got 0/8, "the sandbox did not start", with nothing telling the instructor).

``grade`` judges such a notebook again in a fresh sandbox; what still cannot be judged is named
in the class summary with the command that grades it again, and its mistake is ``not-judged``.
"""

from __future__ import annotations

import nbformat
import pytest
from test_gradebook import MASKS
from test_gradebook_round12 import solution

from autograder.core.result import NOT_JUDGED
from autograder.grade.grading import grade_class
from autograder.grade.outputs.table import read_table
from autograder.sandbox.host import submission
from autograder.sandbox.host.replies import SandboxDidNotStart

MARK = "UNLUCKY = 1"  # in the notebook whose sandbox fails to start


@pytest.fixture
def unlucky(monkeypatch):
    """The sandbox does not start for the marked notebook, the first ``fails[0]`` times."""
    fails = [0]
    start = submission.Submission._start

    def _start(self, retry=True):
        if any(MARK in source for _, source in self._setup.cells) and fails[0] > 0:
            fails[0] -= 1
            raise SandboxDidNotStart("the grader's sandbox did not start (test); not your code")
        return start(self, retry)

    monkeypatch.setattr(submission.Submission, "_start", _start)
    return fails


def _class(tmp_path):
    root = tmp_path / "submitted"
    for student, extra in (("alice", MARK), ("bob", None)):
        nb = solution()
        if extra:
            nb.cells.append(nbformat.v4.new_code_cell(extra))
        (root / student / MASKS).mkdir(parents=True)
        (root / student / MASKS / f"{MASKS}.ipynb").write_text(nbformat.writes(nb))
    return root


def test_a_notebook_whose_sandbox_did_not_start_is_judged_again_in_a_fresh_one(tmp_path, unlucky):
    unlucky[0] = 1
    out = tmp_path / "grades.csv"
    graded = grade_class(_class(tmp_path), out, workers=1, config=None, assignments=[MASKS])
    assert unlucky[0] == 0  # it did fail once
    assert {r["student"]: r["total"] for r in read_table(out)} == {"alice": "8", "bob": "8"}
    assert "not judged" not in graded.summary()


def test_what_still_cannot_be_judged_is_named_with_the_command_that_grades_it_again(
    tmp_path, unlucky
):
    unlucky[0] = 10**6
    out = tmp_path / "grades.csv"
    graded = grade_class(_class(tmp_path), out, workers=1, config=None, assignments=[MASKS])
    assert {r["student"]: r["total"] for r in read_table(out)} == {"alice": "0", "bob": "8"}
    [alice] = [g for g in graded.rows if g.student == "alice"]
    assert alice.results and {r.mistake for r in alice.results} == {NOT_JUDGED}
    [line] = [line for line in graded.summary().splitlines() if "not judged" in line]
    assert f"not judged: alice/{MASKS}: softmax, causal_mask" in line, line
    assert line.endswith(f"grade it again with --student alice --assignment {MASKS}"), line

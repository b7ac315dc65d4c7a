"""The grader inside Gradescope's autograder container: ``python -m autograder.grade.gradescope``.

Gradescope (https://gradescope-autograders.readthedocs.io/en/latest/specs/) builds an image from
the ``autograder.zip`` that ``make gradescope ASSIGNMENT=...`` makes (``scripts/gradescope.py``):
it unzips it into ``/autograder/source``, runs ``setup.sh`` once, then for each submission starts
a fresh container, puts the student's files in ``/autograder/submission`` and runs
``/autograder/run_autograder``, which runs this. It grades the one notebook submitted (named
``<assignment>.ipynb``, or the only notebook there) exactly as ``grade`` grades a class, and writes
Gradescope's ``/autograder/results/results.json`` (:func:`autograder.grade.outputs.
exports.gradescope_results`). Gradescope applies its own late policy, so no due date is used here.

The root is ``$AUTOGRADER_ROOT`` (``/autograder`` by default), so that a test replays the layout
in a scratch folder. Where bubblewrap cannot run (Gradescope's containers usually forbid the
user namespaces it needs), learner code runs with process isolation only, inside Gradescope's
container for this one submission (see SECURITY.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from autograder.grade.outputs import files
from autograder.i18n import _

STUDENT = "student"  # the one student of a container


def notebooks(submission: Path) -> list[tuple[str, bytes]]:
    """The notebooks submitted (top level first, else one folder down), read without following
    a link; Gradescope keeps the folders of an uploaded zip."""
    from autograder.core.extract import Unreadable, read_bytes

    found = []
    for depth in ("*.ipynb", "*/*.ipynb"):
        for path in sorted(submission.glob(depth)):
            try:
                found.append((path.name, read_bytes(path)))
            except Unreadable:
                continue
        if found:
            break
    return found


def failure(assignment: str, why: str) -> dict:
    """results.json for a submission that could not be graded at all (in the course's language,
    as the feedback is)."""
    said = _("Could not be graded: {problem}").format(problem=why)
    return {"score": 0.0, "output": f"{assignment}\n{said}", "tests": []}


def grade(root: Path, assignment: str) -> dict:
    """Grade ``root/submission`` as ``assignment``; Gradescope's results."""
    from autograder.grade.grading import grade_class
    from autograder.grade.outputs.exports import gradescope_results
    from autograder.grade.results import GradeError
    from autograder.sandbox.host.bwrap import strong_isolation_available

    found = notebooks(root / "submission")
    if not found:
        return failure(assignment, _("no notebook (.ipynb) was submitted"))
    with tempfile.TemporaryDirectory(prefix="gradescope-") as scratch:
        folder = Path(scratch) / "submitted" / STUDENT / assignment
        folder.mkdir(parents=True)
        for name, data in found:
            (folder / name).write_bytes(data)
        try:
            table = grade_class(
                folder.parents[1],
                Path(scratch) / "grades" / "grades.csv",
                workers=1,
                assignments=[assignment],
                config=None,
                late_penalty=0.0,
                allow_weak_sandbox=not strong_isolation_available(),
            )
        except GradeError as e:
            return failure(assignment, str(e))
        return gradescope_results(table.rows[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.grade.gradescope")
    parser.add_argument("assignment", help="the assignment graded, e.g. 04_softmax_masks")
    args = parser.parse_args(argv)
    root = Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    results = grade(root, args.assignment)
    out = root / "results" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    files.write_text(out, json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(results["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

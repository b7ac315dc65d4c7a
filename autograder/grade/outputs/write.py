"""Write everything a graded class produces (listed in ``autograder.grade.outputs``).

With a gradebook, ``overlay`` sets every row's scores to what the gradebook holds before anything
is written (an instructor's manual scores, the late penalties), so every output agrees with
``nbgrader export``; rows kept from an earlier run are overlaid too.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from autograder.grade.messages import OUTPUTS
from autograder.grade.outputs import canvas, class_report, details, exports, feedback, table
from autograder.grade.results import Graded, GradeTable, shared_folders
from autograder.i18n import _
from autograder.sandbox.protocol import one_line


def sibling(out: Path, suffix: str) -> Path:
    """``grades.csv`` -> ``grades<suffix>`` in the same folder."""
    return out.with_name(out.stem + suffix)


def write_outputs(
    graded: GradeTable, keep: list[dict[str, str]], regrading: bool, overlay=None
) -> None:
    """Write everything listed above. ``keep``: the earlier table's rows not regraded now;
    ``regrading``: only some students or assignments were graded, the rest come from before;
    ``overlay(rows)``: the gradebook's scores put into the rows (see above).

    The table and the text feedback come first; should a later output fail, the grades are
    safe and the table's notes say what is missing and why."""
    path = sibling(graded.out, "_results.json")
    everyone = details.update(path, graded.rows, regrading, overlay)
    now = {id(g) for g in graded.rows}
    detailed = {(g.student, g.assignment): g for g in everyone if id(g) not in now}
    keep = [detailed.pop((r["student"], r["assignment"]), None) or r for r in keep]
    keep = [table.as_row(r) if isinstance(r, Graded) else r for r in keep]
    table.write_csv(graded, keep)
    # with a gradebook, an earlier row's scores may have changed there: its feedback too
    each = replace(graded, rows=everyone) if overlay is not None else graded  # notes shared
    each = _own_folders_only(each, [r["student"] for r in keep])
    table.write_feedback(each)
    rows = table.read_table(graded.out)
    writers = [
        lambda: feedback.write_html(each),
        lambda: class_report.write(sibling(graded.out, "_report.html"), everyone, graded, rows),
        lambda: exports.write_gradescope(sibling(graded.out, "_gradescope"), each.rows),
        lambda: exports.write_lms_csv(sibling(graded.out, "_lms.csv"), rows),
        lambda: canvas.write(sibling(graded.out, "_canvas.csv"), rows),
    ]
    for name, write in zip(OUTPUTS, writers, strict=True):  # named in English, said translated
        try:
            graded.outputs[name] = write()
        except Exception as e:  # the grades are written; say what is missing, keep the rest
            said = _("the {output} could not be written: {error}")
            graded.notes.append(said.format(output=_(name), error=f"{type(e).__name__}: {e}"))


def _own_folders_only(graded: GradeTable, earlier: list[str]) -> GradeTable:
    """``graded`` without the rows of students who would share a feedback or Gradescope folder
    with another student of the table (``earlier``: those of an earlier run): no one's files are
    written over another's, and the notes say whose were not written (red team round 26)."""
    shared = shared_folders([g.student for g in graded.rows] + earlier)
    if not shared:
        return graded
    for folder, ids in shared.items():
        said = _(
            "students {students} would share one feedback folder ({folder}): none of their "
            "feedback (text, HTML, Gradescope) was written and that folder was left as it was; "
            "their grades are in the table. Rename one's submission folder and grade them again."
        )
        students = _(", ").join(one_line(repr(i)) for i in ids)
        graded.notes.append(said.format(students=students, folder=one_line(folder)))
    clash = {s for ids in shared.values() for s in ids}
    return replace(graded, rows=[g for g in graded.rows if g.student not in clash])


def warm_up_steps() -> list:
    """What a first ``grade`` loads or reads before it writes anything, in steps of well under a
    second each, for the warm grader to do while it is idle (``autograder/service/worker.py``):
    nbformat, matplotlib drawing one small plot (its fonts, layout and PNG writer), and the
    course's notebooks read for the feedback's citations. Each step only fills what the first
    grade would have filled: the outputs are the same with or without them."""
    from autograder.core.extract import import_nbformat
    from autograder.grade.outputs import plots, sections

    return [import_nbformat, lambda: plots.score_histogram([0.0], 1.0), sections.citations]


@contextmanager
def uninterrupted():
    """Ctrl-C (SIGINT) in the block waits for its end: the outputs of one grading are written
    together, never some of them (an instructor's trial stopped a run between the table and the
    LMS files, and the next run kept the interrupted run's late penalty). Yields the presses seen;
    outside the main thread, where no signal arrives, none."""
    pressed: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield pressed
        return
    previous = signal.signal(signal.SIGINT, lambda *_: pressed.append(1))
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)

"""The learner's feedback as a page, in nbgrader's layout, so ``nbgrader release_feedback`` can
hand it out: ``<feedback>/<student>/<assignment>/<notebook>.html``.

nbgrader 0.9's ``release_feedback`` takes every ``<feedback>/<student>/<assignment>/*.html`` and
reads ``timestamp.txt`` and ``submission_secret.txt`` beside it (it names the released file by a
hash of the secret and the notebook's name, which the student's ``fetch_feedback`` recomputes);
nbgrader's ``collect``/``submit`` put both files in each submission, and they are copied from
there (never through a symbolic link). A page names only the learner's own notebook.
"""

from __future__ import annotations

import os
from pathlib import Path

from autograder.core.extract import ExtractError, read_submission
from autograder.core.mistakes import looks_like
from autograder.core.result import Result
from autograder.grade import messages
from autograder.grade.outputs import files, sections
from autograder.grade.outputs.page import element, esc, fill, page, points, table
from autograder.grade.results import BLANK, NOT_SUBMITTED, Graded, GradeTable, safe_name
from autograder.i18n import _, ngettext
from autograder.sandbox.protocol import one_line

NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")  # what release_feedback reads


def label(item: str) -> str:
    """``answer_04_1`` -> ``Question 04.1`` (``问题 04.1``); an exercise keeps its name."""
    if item.startswith("answer_"):
        return _("Question {number}").format(number=item.removeprefix("answer_").replace("_", "."))
    return item


def mistake_html(mistake: str | None, assignment: str) -> str:
    """The named mistake: its title and hint, and the lesson section to re-read."""
    if mistake is None:
        return ""
    text = looks_like(mistake) or f"[{mistake}]"
    where = sections.section(mistake, assignment)
    reread = "<br>" + esc(_("Re-read: {section}.").format(section=where)) if where else ""
    return f'<p class="note">{esc(text)}{reread}</p>'


def _result_row(r: Result, assignment: str, manual: dict[str, float]) -> list[str]:
    verdict = (
        element("span", _("passed"), "passed")
        if r.passed
        else element("span", _("failed"), "failed")
    )
    if not r.passed:
        detail = f"<pre>{esc(r.message)}</pre>" + mistake_html(r.mistake, assignment)
    elif r.message and r.message != _("all checks passed"):  # passed, with a note (as the text)
        detail = f"<pre>{esc(r.message)}</pre>"
    else:
        detail = ""
    score = f"{points(r.points)} / {points(r.max_points)}"
    if r.exercise in manual:
        score += " " + _("(set by your instructor; the grader gave {points})").format(
            points=points(manual[r.exercise])
        )
    return [esc(label(r.exercise)), verdict, score, detail]


def feedback_html(g: Graded) -> str:
    """The page for one student's submission of one assignment."""
    parts = [
        "<p>"
        + fill(
            _("Your notebook: {notebook}. Status: {status}."),
            notebook=element("code", one_line(g.notebook) if g.notebook else _("(none)")),
            status=f"<strong>{esc(messages.status(g.status))}</strong>",
        )
        + "</p>"
    ]
    passed = sum(r.passed for r in g.results)
    sentence = [_("Score: {score}")]
    if g.results:
        sentence.append(_(" ({passed} of {count} passed)"))
    if g.penalty:
        sentence.append(_(", after a late penalty of {penalty}"))
    # TRANSLATORS: the full stop that ends the sentence "Score: 6 / 8 (6 of 8 passed)."
    sentence.append(_("."))
    score = f"<strong>{points(g.total)} / {points(g.max_points)}</strong>"
    fields = {"passed": str(passed), "count": str(len(g.results)), "penalty": points(g.penalty)}
    parts.append("<p>" + fill("".join(sentence), score=score, **fields) + "</p>")
    if g.error:
        problem = esc(_("Could not be graded: {problem}").format(problem=messages.error(g)))
        parts.append(f'<p class="failed">{problem}</p>')
    if g.status == BLANK:
        parts.append(element("p", _("Nothing in this notebook was attempted yet.")))
    if g.results:
        rows = [_result_row(r, g.assignment, g.manual) for r in g.results]
        head = [_("Exercise or question"), _("Result"), _("Points"), _("What the grader found")]
        parts.append(table(head, rows, numeric={2}))
    notes = messages.notes(g)
    if notes:
        items = "".join(f"<li>{esc(n)}</li>" for n in notes)
        parts.append(element("h2", _("Notes")) + f'\n<ul class="note">{items}</ul>')
    return page(_("Feedback: {assignment}").format(assignment=g.assignment), "\n".join(parts))


def html_path(feedback_dir: Path, g: Graded) -> Path:
    """``<feedback>/<student>/<assignment>/<notebook>.html`` (named after the notebook graded,
    as nbgrader names it, or after the assignment when none could be)."""
    name = Path(g.notebook).stem if g.notebook else g.assignment
    return feedback_dir / safe_name(g.student) / safe_name(g.assignment) / f"{safe_name(name)}.html"


def _copy_nbgrader_files(submissions: Path | None, g: Graded, dest: Path) -> set[str]:
    """Copy nbgrader's ``timestamp.txt`` and ``submission_secret.txt`` where the submission has
    them (its folders not links, the files regular and small); the names of those missing."""
    missing = set(NBGRADER_FILES)
    student = submissions / g.student if submissions else None
    folder = student / g.assignment if student else None
    if folder and not os.path.islink(student) and not os.path.islink(folder) and folder.is_dir():
        for name in NBGRADER_FILES:
            try:
                text = read_submission(folder / name, limit=4096)
            except ExtractError:
                continue
            files.write_text(dest / name, text)
            missing.discard(name)
    return missing


def write_html(graded: GradeTable) -> Path:
    """A page for each submission graded now (none for a student who submitted nothing); says,
    in the table's notes, which pages ``nbgrader release_feedback`` could not hand out."""
    unreleasable, lacking = [], set()
    for g in graded.rows:
        if g.status == NOT_SUBMITTED:
            continue
        path = html_path(graded.feedback_dir, g)
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_text(path, feedback_html(g))
        missing = _copy_nbgrader_files(graded.submissions, g, path.parent)
        if missing:
            unreleasable.append(path.relative_to(graded.feedback_dir).parent.as_posix())
            lacking |= missing
    if unreleasable:
        shown = ", ".join(one_line(u) for u in unreleasable[:5])
        more = len(unreleasable) - 5
        shown += _(" and {n} more").format(n=more) if more > 0 else ""
        names = _(" or ").join(n for n in NBGRADER_FILES if n in lacking)
        said = ngettext(
            "{n} feedback folder without {names} (the submission was not collected by "
            "nbgrader): {folders}. nbgrader release_feedback stops at such a folder: hand those "
            "pages out yourself, or move them away first.",
            "{n} feedback folders without {names} (the submission was not collected by "
            "nbgrader): {folders}. nbgrader release_feedback stops at such a folder: hand those "
            "pages out yourself, or move them away first.",
            len(unreleasable),
        )
        graded.notes.append(said.format(n=len(unreleasable), names=names, folders=shown))
    return graded.feedback_dir

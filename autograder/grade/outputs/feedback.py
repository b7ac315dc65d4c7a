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
from autograder.grade.outputs import files, wording
from autograder.grade.outputs.page import element, esc, fill, page, table
from autograder.grade.results import NOT_SUBMITTED, Graded, GradeTable, safe_name
from autograder.i18n import _, ngettext
from autograder.sandbox.protocol import one_line

NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")  # what release_feedback reads


def _item_row(it: wording.Item) -> list[str]:
    verdict = element("span", it.verdict, "passed" if it.passed else "failed")
    detail = f"<pre>{esc(it.message)}</pre>" if it.message else ""
    if it.hint or it.reread:
        said = "<br>".join(esc(s) for s in (it.hint, it.reread) if s)
        detail += f'<p class="note">{said}</p>'
    return [esc(it.name), verdict, esc(it.points), detail]


def feedback_html(g: Graded) -> str:
    """The page for one student's submission of one assignment: what its text says
    (``wording``), laid out as a page."""
    template, fields = wording.header(g)
    notebook = element("code", fields["notebook"])
    status = f"<strong>{esc(fields['status'])}</strong>"
    parts = ["<p>" + fill(template, notebook=notebook, status=status) + "</p>"]
    template, fields = wording.score(g)
    fields = {k: esc(v) for k, v in fields.items()}
    fields["score"] = f"<strong>{fields['score']}</strong>"
    parts.append("<p>" + fill(template, **fields) + "</p>")
    problem = wording.problem(g)
    if problem:
        parts.append(element("p", problem, "failed" if g.error else None))
    if g.results:
        rows = [_item_row(it) for it in wording.items(g)]
        head = [_("Exercise or question"), _("Result"), _("Points"), _("What the grader found")]
        parts.append(table(head, rows, numeric={2}))
    notes = wording.notes(g)
    if notes:
        listed = "".join(f"<li>{esc(n)}</li>" for n in notes)
        parts.append(element("h2", _("Notes")) + f'\n<ul class="note">{listed}</ul>')
    return page(wording.title(g), "\n".join(parts))


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


def _either(names: set[str]) -> str:
    """nbgrader's files among ``names``, in their order ("timestamp.txt or
    submission_secret.txt")."""
    return _(" or ").join(n for n in NBGRADER_FILES if n in names)


def _lacked_before(folder: Path) -> bool:
    """An earlier run wrote ``folder`` without nbgrader's files: its note named it then."""
    return folder.is_dir() and not all((folder / n).is_file() for n in NBGRADER_FILES)


def write_html(graded: GradeTable) -> Path:
    """A page for each submission graded now (none for a student who submitted nothing); says,
    in the table's notes, which pages ``nbgrader release_feedback`` could not hand out: in full
    for the folders new since an earlier run (or that had the files then), in one line, their
    count, for those an earlier run named (a trial: the whole class on every run)."""
    unreleasable, told, lacking, still = [], 0, set(), set()
    for g in graded.rows:
        if g.status == NOT_SUBMITTED:
            continue
        path = html_path(graded.feedback_dir, g)
        named = _lacked_before(path.parent)
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_text(path, feedback_html(g))
        missing = _copy_nbgrader_files(graded.submissions, g, path.parent)
        if missing and named:
            told += 1
            still |= missing
        elif missing:
            unreleasable.append(path.relative_to(graded.feedback_dir).parent.as_posix())
            lacking |= missing
    if unreleasable:
        shown = _(", ").join(one_line(u) for u in unreleasable[:5])
        more = len(unreleasable) - 5
        shown += _(" and {n} more").format(n=more) if more > 0 else ""
        said = ngettext(
            "{n} feedback folder without {names} (the submission was not collected by "
            "nbgrader): {folders}. nbgrader release_feedback stops at such a folder: hand those "
            "pages out yourself, or move them away first.",
            "{n} feedback folders without {names} (the submission was not collected by "
            "nbgrader): {folders}. nbgrader release_feedback stops at such a folder: hand those "
            "pages out yourself, or move them away first.",
            len(unreleasable),
        )
        graded.notes.append(said.format(n=len(unreleasable), names=_either(lacking), folders=shown))
    if told:  # the files they lack, as the first note named them (a trial: timestamp.txt was there)
        said = ngettext(
            "{n} feedback folder named by an earlier run still lacks {names}: nbgrader "
            "release_feedback stops at it.",
            "{n} feedback folders named by earlier runs still lack {names}: nbgrader "
            "release_feedback stops at them.",
            told,
        )
        graded.notes.append(said.format(n=told, names=_either(still)))
    return graded.feedback_dir

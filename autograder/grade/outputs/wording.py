"""What a submission's feedback says, put into words once for both of its forms: the text file
(``table.feedback_text``) and the page (``feedback.feedback_html``) lay out the same sentences,
in the same order, in the current language.

A trial found the two apart: the text's "Score" was before the late penalty and the page's after
it, the text named a question ``answer_04_1`` and the page "Question 04.1", and only the page
said which lesson section to re-read for a named mistake.

Order: the title, the notebook and its status, the score (after any late penalty: the table's
``total``), why it could not be graded or that nothing was attempted, each exercise and question
(verdict, points, what the grader found, the mistake it looks like and the section to re-read),
then the notes (a late submission's times among them).
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.core.mistakes import looks_like
from autograder.core.result import Result
from autograder.grade import messages
from autograder.grade.outputs import sections
from autograder.grade.results import BLANK, Graded
from autograder.i18n import N_, _
from autograder.sandbox.protocol import one_line


def label(item: str) -> str:
    """``answer_04_1`` -> ``Question 04.1`` (``问题 04.1``); an exercise keeps its name."""
    if item.startswith("answer_"):
        return _("Question {number}").format(number=item.removeprefix("answer_").replace("_", "."))
    return item


def title(g: Graded) -> str:
    return _("Feedback: {assignment}").format(assignment=g.assignment)


# The sentences below are templates: the text fills them with ``str.format``, the page with
# ``page.fill`` (its fields as HTML, the score in bold).
HEADER = N_("Your notebook: {notebook}. Status: {status}.")


def header(g: Graded) -> tuple[str, dict[str, str]]:
    """ "Your notebook: X. Status: late." (template, fields as text)."""
    notebook = one_line(g.notebook) if g.notebook else _("(none)")
    return _(HEADER), {"notebook": notebook, "status": messages.status(g.status)}


def score(g: Graded) -> tuple[str, dict[str, str]]:
    """ "Score: 7.2/8 (8 of 8 passed), after a late penalty of 0.8 points." The score is the
    table's total, after the penalty (template, fields as text)."""
    sentence = [_("Score: {score}")]
    if g.results:
        sentence.append(_(" ({passed} of {count} passed)"))
    if g.penalty:
        sentence.append(_(", after a late penalty of {penalty} points"))
    # TRANSLATORS: the full stop that ends the sentence "Score: 6/8 (6 of 8 passed)."
    sentence.append(_("."))
    fields = {
        "score": f"{g.total:g}/{g.max_points:g}",
        "passed": str(sum(r.passed for r in g.results)),
        "count": str(len(g.results)),
        "penalty": f"{g.penalty:g}",
    }
    return "".join(sentence), fields


def problem(g: Graded) -> str | None:
    """Why the submission could not be graded, or that nothing in it was attempted; or None."""
    if g.error:
        return _("Could not be graded: {problem}").format(problem=messages.error(g))
    if g.status == BLANK:
        return _("Nothing in this notebook was attempted yet.")
    return None


@dataclass
class Item:
    """One exercise or question, as its feedback says it."""

    name: str  # "softmax", "Question 04.1"
    passed: bool
    verdict: str  # "passed", "failed"
    points: str  # "1/1", with an instructor's score said
    message: str  # what the grader found ("" when there is nothing to add)
    hint: str | None  # the known mistake it looks like, with its hint
    reread: str | None  # the lesson section that teaches it


def item(r: Result, g: Graded) -> Item:
    points = f"{r.points:g}/{r.max_points:g}"
    if r.exercise in g.manual:
        points += " " + _("(set by your instructor; the grader gave {points})").format(
            points=f"{g.manual[r.exercise]:g}"
        )
    message, hint, reread = r.message, None, None
    if r.passed and message == _("all checks passed"):
        message = ""  # passed, and nothing to add (one with a note keeps it)
    if not r.passed and r.mistake:
        hint = looks_like(r.mistake) or _("Looks like: [{id}]").format(id=r.mistake)
        where = sections.section(r.mistake, g.assignment)
        reread = _("Re-read: {section}.").format(section=where) if where else None
    verdict = _("passed") if r.passed else _("failed")
    return Item(label(r.exercise), r.passed, verdict, points, message, hint, reread)


def items(g: Graded) -> list[Item]:
    return [item(r, g) for r in g.results]


def notes(g: Graded) -> list[str]:
    """The notes: what the judge noted, a ``timestamp.txt`` not read, lateness."""
    return messages.notes(g)

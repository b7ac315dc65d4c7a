"""What ``grade --gradebook`` wrote into nbgrader's gradebook, as the summary says it (in the
current language: the run that wrote it prints it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.grade.inert import ID_PUNCTUATION
from autograder.i18n import _
from autograder.sandbox.protocol import one_line


@dataclass
class Written:
    """What a write did, for the summary."""

    url: str
    submissions: int = 0  # submissions whose scores were written
    created: int = 0  # of which created (nbgrader had none)
    students: int = 0  # students added to the gradebook
    kept: list[str] = field(default_factory=list)  # manual overrides left in place
    autograded: int = 0  # autograded notebooks written, for formgrader and feedback
    skipped: list[str] = field(default_factory=list)  # no autograded notebook, and why
    refused: list[str] = field(default_factory=list)  # student ids formgrader cannot show: why
    # timestamp.txt earlier than the time the gradebook had (nbgrader's collect): back-dated?
    earlier: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = _(  # counts after colons: a count of 1 reads as well as one of 20
            "Gradebook {url}: submissions whose scores were written: {submissions} ({created} "
            "new); students added: {students}"
        ).format(
            url=self.url,
            submissions=self.submissions,
            created=self.created,
            students=self.students,
        )
        if self.autograded or self.skipped:
            text += _("; autograded notebooks for formgrader: {n}").format(n=self.autograded)
        # each entry names a student's and an assignment's folder: learner text, on one line
        none = _("\n  no autograded notebook for {what}")
        text += "".join(none.format(what=one_line(why)) for why in self.skipped)
        refused = _(
            "\n  not written: {what}: formgrader would print the id as HTML (it prints a "
            "student's id unescaped). Rename the student's folder in the submissions folder to "
            "letters, digits and {punctuation} only, then grade again"
        )
        punctuation = " ".join(ID_PUNCTUATION)
        text += "".join(
            refused.format(what=one_line(why), punctuation=punctuation) for why in self.refused
        )
        earlier = _(
            "\n  warning: {what}: its timestamp.txt is earlier than the submission time the "
            "gradebook had; it was back-dated, or changed after collection (the earlier time "
            "was written)"
        )
        text += "".join(earlier.format(what=what) for what in map(one_line, self.earlier))
        if self.kept:
            text += _(
                "; {n} manual scores from formgrader kept (they win over the grader's, and are "
                "marked for review): {items}"
            ).format(n=len(self.kept), items=one_line(_(", ").join(self.kept)))
        return text

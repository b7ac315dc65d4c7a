"""The class report (``<out stem>_report.html``): what to re-teach, in one self-contained page.

In the spirit of nbgrader's formgrader and Otter's reports: per assignment, the pass rate of each
exercise and question and the distribution of totals; across the class, the named mistakes made
most often, each with the lesson section that teaches it and the students who made it (the page
is the instructor's: it names students, and is never written into the feedback folder); and who
could not be graded, or was late, and why. The plots are matplotlib's, embedded as PNGs; nothing
is fetched.

A failure is counted once, at its root: an exercise that failed while an earlier exercise it is
built on (its reference in ``course_lib`` calls it, e.g. ``MultiHeadAttention`` calls
``merge_heads``) also failed in the same submission is a knock-on, counted apart; failures a cell
the grader could not read is behind (a syntax error in the import cell: a NameError in each
exercise) are counted once per submission, under that cell. Every figure
of an assignment has one denominator: the submissions received (an unreadable one fails every
item and scores 0; those never submitted are left out, and counted).
"""

from __future__ import annotations

import ast
import contextlib
import functools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean, median

from autograder import i18n
from autograder.core import syntax
from autograder.core.mistakes import GENERIC_IDS, MISTAKES
from autograder.grade import COURSE, messages
from autograder.grade.outputs import files, plots, sections
from autograder.grade.outputs.page import element, esc, page, points, table
from autograder.grade.outputs.wording import label
from autograder.grade.results import (
    BLANK,
    GRADED,
    LATE,
    NOT_SUBMITTED,
    STATUSES,
    UNREADABLE,
    Graded,
    GradeTable,
    lesson_of,
    notebook_order,
    status,
)
from autograder.grade.results import counts as status_counts
from autograder.i18n import _, ngettext

RECEIVED = (GRADED, LATE, BLANK, UNREADABLE)  # the one denominator: what was submitted
ATTEMPTED = (GRADED, LATE)  # a blank notebook's failures are not mistakes
TOP_MISTAKES = 15


@dataclass
class ItemRate:
    item: str
    max_points: float
    passed: int = 0
    judged: int = 0

    @property
    def rate(self) -> float:
        return self.passed / self.judged if self.judged else 0.0


def pass_rates(rows: list[Graded], assignment: str) -> list[ItemRate]:
    """Each item of ``assignment`` (notebook order): how many of the submissions received passed
    it (one that could not be read passes none)."""
    rates: dict[str, ItemRate] = {}
    lesson = lesson_of(assignment)
    for item in notebook_order(lesson) if lesson else ():
        rates[item] = ItemRate(item, 0.0)
    received = [g for g in rows if g.assignment == assignment and g.status in RECEIVED]
    for g in received:
        for r in g.results:
            rate = rates.setdefault(r.exercise, ItemRate(r.exercise, r.max_points))
            rate.max_points = r.max_points
            rate.passed += r.passed
    for rate in rates.values():
        rate.judged = len(received)
    known = {r.exercise for g in received for r in g.results}
    return [r for r in rates.values() if r.judged and r.item in known]


@functools.cache
def depends_on(item: str) -> frozenset[str]:
    """The exercises ``item`` is built on: the ones its reference in ``course_lib`` calls,
    and theirs (read from the source, never imported)."""
    from autograder.contract import BY_NAME

    def direct(name: str) -> set[str]:
        ex = BY_NAME.get(name)
        if ex is None:
            return set()
        source = COURSE.joinpath(*ex.module.split(".")).with_suffix(".py")
        try:
            tree = syntax.parse(source.read_text())
        except (OSError, SyntaxError):
            return set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
                used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                return {u for u in used if u in BY_NAME and u != name}
        return set()

    found, todo = set(), [item]
    while todo:
        for used in direct(todo.pop()) - found:
            found.add(used)
            todo.append(used)
    return frozenset(found)


def knock_on(g: Graded) -> set[str]:
    """The failures of a submission that an earlier failure it is built on explains."""
    failed = {r.exercise for r in g.results if not r.passed and r.attempted}
    return {item for item in failed if depends_on(item) & failed}


@dataclass
class MistakeCount:
    mistake: str
    times: int = 0
    students: set[str] = field(default_factory=set)
    where: Counter = field(default_factory=Counter)  # (assignment, item) -> times


def mistakes(rows: list[Graded]) -> tuple[list[MistakeCount], int, int, int]:
    """The named mistakes in attempted work, counted at their root, most frequent first; how
    many failures named none; how many items were not attempted (not defined, not answered: no
    mistake to re-teach); and how many failures were knock-ons of an earlier one."""
    found: dict[str, MistakeCount] = {}
    unnamed = unattempted = knocked = 0
    for g in rows:
        if g.status not in ATTEMPTED:
            continue
        explained = knock_on(g)
        for r in g.results:
            if r.passed or r.unread:  # a cell not read: counted once, under it (unread_failures)
                continue
            if r.exercise in explained:
                knocked += 1
            elif not r.attempted:
                unattempted += 1
            elif r.mistake is None:
                unnamed += 1
            elif r.mistake == messages.TAMPERING:  # not a lesson's: the summary names them
                continue
            else:
                count = found.setdefault(r.mistake, MistakeCount(r.mistake))
                count.times += 1
                count.students.add(g.student)
                count.where[(g.assignment, r.exercise)] += 1
    ranked = sorted(found.values(), key=lambda m: (-m.times, -len(m.students), m.mistake))
    return ranked, unnamed, unattempted, knocked


def unread_failures(rows: list[Graded]) -> list[tuple[Graded, int]]:
    """The submissions whose failures a cell the grader could not read is behind (a syntax
    error in the import cell fails every exercise with a NameError), each with how many: their
    root is that cell, counted once per submission, not as a failure of each exercise."""
    found = [(g, sum(1 for r in g.results if r.unread and not r.passed)) for g in rows]
    return [(g, n) for g, n in found if n and g.status in ATTEMPTED]


def _img(src: str, alt: str) -> str:
    return f'<img src="{src}" alt="{esc(alt)}">'


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def _mistakes_section(rows: list[Graded]) -> str:
    ranked, unnamed, unattempted, knocked = mistakes(rows)
    parts = [element("h2", _("What to re-teach: the most frequent named mistakes"))]
    if not ranked:
        parts.append(element("p", _("No named mistake in the submissions graded.")))
    else:
        top = ranked[:TOP_MISTAKES]
        body = []
        for m in top:
            entry = MISTAKES.get(m.mistake)
            title = _(entry.title) if entry else _("(not in the catalogue)")
            (assignment, _item), _times = m.where.most_common(1)[0]
            where = sections.section(m.mistake, assignment)
            where = where or _(messages.GENERAL if m.mistake in GENERIC_IDS else messages.NOT_CITED)
            seen = messages.listed(
                [f"{messages.aside(label(i), a)} ×{n}" for (a, i), n in m.where.items()]
            )
            body.append(
                [
                    f"<code>{esc(m.mistake)}</code>",
                    esc(title),
                    str(m.times),
                    str(len(m.students)),
                    esc(messages.listed(sorted(m.students))),
                    esc(seen),
                    esc(where),
                ]
            )
        head = [_("Mistake"), _("Title"), _("Times"), _("Students"), _("Who"), _("Where made")]
        head.append(_("Lesson section"))
        parts.append(table(head, body, numeric={2, 3}))
        chart = plots.mistake_counts([m.mistake for m in top], [m.times for m in top])
        parts.append(_img(chart, _("how often each named mistake was made")))
        if len(ranked) > TOP_MISTAKES:
            rarer = _("{n} rarer ones not shown.").format(n=len(ranked) - TOP_MISTAKES)
            parts.append(f"<p class='note'>{esc(rarer)}</p>")
    counted = [
        ngettext(
            "Each failure is counted once, at its root: {n} failure of an exercise built on an "
            "earlier one that also failed (the earlier one is counted) left out.",
            "Each failure is counted once, at its root: {n} failures of an exercise built on an "
            "earlier one that also failed (the earlier one is counted) left out.",
            knocked,
        ).format(n=knocked)
        if knocked
        else _("Each failure is counted once, at its root.")
    ]
    behind = sum(n for _g, n in unread_failures(rows))
    counts = [  # a count of 0 is not said
        behind
        and ngettext(
            "{n} failure follows from cells the grader could not read (a syntax error...): "
            "counted once per submission, under 'Cells the grader could not read' below",
            "{n} failures follow from cells the grader could not read (a syntax error...): "
            "counted once per submission, under 'Cells the grader could not read' below",
            behind,
        ).format(n=behind),
        unnamed
        and ngettext(
            "{n} other failure named no known mistake (their messages are in each student's "
            "feedback)",
            "{n} other failures named no known mistake (their messages are in each student's "
            "feedback)",
            unnamed,
        ).format(n=unnamed),
        unattempted
        and ngettext(
            "{n} item (exercises or questions) not attempted (not defined, or not answered) in "
            "notebooks that attempted others",
            "{n} items (exercises or questions) not attempted (not defined, or not answered) in "
            "notebooks that attempted others",
            unattempted,
        ).format(n=unattempted),
    ]
    if any(counts):  # one sentence: the counts said, then a full stop
        counted.append(_("; ").join(c for c in counts if c) + _("."))
    counted.append(_("The Who column names students: this page is for the instructor only."))
    parts.append(f"<p class='note'>{esc(i18n.sentences(counted))}</p>")
    return "\n".join(parts)


def _assignment_section(rows: list[Graded], assignment: str) -> str:
    mine = [g for g in rows if g.assignment == assignment]
    received = [g for g in mine if g.status in RECEIVED]
    max_points = mine[0].max_points
    counts = status_counts(mine)
    never = len(mine) - len(received)
    students = ngettext("{n} student", "{n} students", len(mine)).format(n=len(mine))
    figures = ngettext(
        "Every figure below is of the {n} submission received (an unreadable one passes "
        "nothing and scores 0",
        "Every figure below is of the {n} submissions received (an unreadable one passes "
        "nothing and scores 0",
        len(received),
    ).format(n=len(received))
    if never:
        figures += ngettext(
            "; {n} student who never submitted left out",
            "; {n} students who never submitted left out",
            never,
        ).format(n=never)
    parts = [
        element("h2", _("Assignment {assignment}").format(assignment=assignment)),
        "<p>"
        + esc(
            _("{students}: {counts}. {figures}).").format(
                students=students, counts=counts, figures=figures
            )
        )
        + "</p>",
    ]
    rates = pass_rates(rows, assignment)
    if rates:
        body = [
            [
                esc(label(r.item)),
                points(r.max_points),
                str(r.passed),
                str(r.judged),
                _percent(r.rate),
            ]
            for r in rates
        ]
        parts.append(element("h3", _("Pass rate per exercise and question")))
        head = [_("Exercise or question"), _("Points"), _("Passed"), _("Received")]
        parts.append(table([*head, _("Pass rate")], body, numeric={1, 2, 3, 4}))
        # the plots' labels: English where their font has no Chinese glyphs (plots.speaks)
        with contextlib.nullcontext() if plots.speaks() else i18n.use("en"):
            names = [label(r.item) for r in rates]
        chart = plots.pass_rates(names, [r.rate for r in rates])
        alt = _("pass rate per exercise and question of {assignment}")
        parts.append(_img(chart, alt.format(assignment=assignment)))
    if received:
        totals = [g.total for g in received]
        parts.append(element("h3", _("Score distribution")))
        stats = _("Mean {mean}, median {median}, best {best}, of {points} points.").format(
            mean=f"{mean(totals):.2f}",
            median=f"{median(totals):g}",
            best=f"{max(totals):g}",
            points=points(max_points),
        )
        parts.append(f"<p>{esc(stats)}</p>")
        chart = plots.score_histogram(totals, max_points)
        alt = _("distribution of the totals of {assignment}").format(assignment=assignment)
        parts.append(_img(chart, alt))
    manual = [g for g in received if g.manual]
    if manual:
        body = [
            [esc(g.student), esc(label(r.exercise)), points(auto), points(r.points)]
            for g in manual
            for r in g.results
            if (auto := g.manual.get(r.exercise)) is not None
        ]
        parts.append(element("h3", _("Scores set in formgrader")))
        head = [_("Student"), _("Exercise or question"), _("Grader"), _("Instructor")]
        parts.append(table(head, body, numeric={2, 3}))
    return "\n".join(parts)


def _problems_section(rows: list[Graded]) -> str:
    parts = [element("h2", _("Blank, or could not be graded"))]
    failed = [g for g in rows if g.status in (UNREADABLE, NOT_SUBMITTED, BLANK)]
    if failed:
        reasons = {
            NOT_SUBMITTED: _("nothing submitted"),
            BLANK: _("nothing attempted in the notebook"),
            UNREADABLE: _("cannot be read"),
        }
        body = [
            [
                esc(g.student),
                esc(g.assignment),
                esc(status(g.status)),
                esc(messages.error(g) or reasons[g.status]),
            ]
            for g in failed
        ]
        parts.append(table([_("Student"), _("Assignment"), _("Status"), _("Why")], body))
    else:
        parts.append(element("p", _("Every submission was graded.")))
    behind = unread_failures(rows)
    if behind:
        parts.append(element("h2", _("Cells the grader could not read")))
        body = [[esc(g.student), esc(g.assignment), str(g.unread), str(n)] for g, n in behind]
        head = [_("Student"), _("Assignment"), _("Cells not read"), _("Failures behind them")]
        parts.append(table(head, body, numeric={2, 3}))
        said = _("Each student's feedback says which cells and why (a syntax error, and its line).")
        parts.append(f"<p class='note'>{esc(said)}</p>")
    parts.append(element("h2", _("Late")))
    late = [g for g in rows if g.status == LATE]
    if late:
        body = [
            [
                esc(g.student),
                esc(g.assignment),
                esc(messages.when(g.submitted, g.due_zone) if g.submitted else ""),
                points(g.penalty),
                esc(messages.delay(g)),
            ]
            for g in late
        ]
        head = [_("Student"), _("Assignment"), _("Submitted"), _("Penalty (points)"), _("Delay")]
        parts.append(table(head, body, numeric={3}))
    else:
        parts.append(element("p", _("No late submission.")))
    return "\n".join(parts)


def report_html(rows: list[Graded], ignored: list[str] = (), missing: int = 0) -> str:
    """The whole report for ``rows``; ``ignored``: folders that are not assignments;
    ``missing``: rows of the grade table whose details this report lacks."""
    students = sorted({g.student for g in rows})
    assignments = sorted({g.assignment for g in rows})
    counts = [[esc(status(s)), str(n)] for s in STATUSES if (n := sum(g.status == s for g in rows))]
    summary = _("{students}, {assignments} ({names}), {rows} in the grade table.").format(
        students=ngettext("{n} student", "{n} students", len(students)).format(n=len(students)),
        assignments=ngettext("{n} assignment", "{n} assignments", len(assignments)).format(
            n=len(assignments)
        ),
        names=messages.listed(assignments),
        rows=ngettext("{n} row", "{n} rows", len(rows)).format(n=len(rows)),
    )
    parts = [f"<p>{esc(summary)}</p>", table([_("Status"), _("Rows")], counts, numeric={1})]
    if missing:
        note = _(
            "{n} rows of the grade table were graded before this report kept details: grade the "
            "class again without --student/--assignment to include them."
        ).format(n=missing)
        parts.append(f"<p class='note'>{esc(note)}</p>")
    parts.append(_mistakes_section(rows))
    parts += [_assignment_section(rows, a) for a in assignments]
    parts.append(_problems_section(rows))
    if ignored:
        not_one = _("{folder}: not an assignment of the course")
        items = "".join(f"<li>{esc(not_one.format(folder=p))}</li>" for p in ignored)
        parts.append(element("h2", _("Ignored folders")) + f"\n<ul>{items}</ul>")
    return page(_("Class report"), "\n".join(parts))


def write(path: Path, rows: list[Graded], graded: GradeTable, table_rows: list[dict]) -> Path:
    """Write the report of ``rows`` (the whole class, a regrade's earlier rows included)."""
    known = {(g.student, g.assignment) for g in rows}
    missing = sum((r["student"], r["assignment"]) not in known for r in table_rows)
    return files.write_text(path, report_html(rows, graded.ignored, missing))

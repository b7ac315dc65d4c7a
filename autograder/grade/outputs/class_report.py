"""The class report (``<out stem>_report.html``): what to re-teach, in one self-contained page.

In the spirit of nbgrader's formgrader and Otter's reports: per assignment, the pass rate of each
exercise and question and the distribution of totals; across the class, the named mistakes made
most often, each with the lesson section that teaches it; and who could not be graded, or was
late, and why. The plots are matplotlib's, embedded as PNGs; nothing is fetched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean, median

from autograder.core.mistakes import MISTAKES
from autograder.grade.outputs import plots, sections
from autograder.grade.outputs.feedback import label
from autograder.grade.outputs.page import esc, page, points, table
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
)

JUDGED = (GRADED, LATE, BLANK)  # statuses whose submissions have a result per item
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
    """Each item of ``assignment`` (notebook order): how many judged submissions passed it."""
    rates: dict[str, ItemRate] = {}
    lesson = lesson_of(assignment)
    for item in notebook_order(lesson) if lesson else ():
        rates[item] = ItemRate(item, 0.0)
    for g in rows:
        if g.assignment != assignment or g.status not in JUDGED:
            continue
        for r in g.results:
            rate = rates.setdefault(r.exercise, ItemRate(r.exercise, r.max_points))
            rate.max_points = r.max_points
            rate.judged += 1
            rate.passed += r.passed
    return [r for r in rates.values() if r.judged]


@dataclass
class MistakeCount:
    mistake: str
    times: int = 0
    students: set[str] = field(default_factory=set)
    where: Counter = field(default_factory=Counter)  # (assignment, item) -> times


def mistakes(rows: list[Graded]) -> tuple[list[MistakeCount], int, int]:
    """The named mistakes in attempted work, most frequent first; how many failures named none;
    and how many items were not attempted (not defined, not answered: no mistake to re-teach)."""
    found: dict[str, MistakeCount] = {}
    unnamed = unattempted = 0
    for g in rows:
        if g.status not in ATTEMPTED:
            continue
        for r in g.results:
            if r.passed:
                continue
            if not r.attempted:
                unattempted += 1
            elif r.mistake is None:
                unnamed += 1
            else:
                count = found.setdefault(r.mistake, MistakeCount(r.mistake))
                count.times += 1
                count.students.add(g.student)
                count.where[(g.assignment, r.exercise)] += 1
    ranked = sorted(found.values(), key=lambda m: (-m.times, -len(m.students), m.mistake))
    return ranked, unnamed, unattempted


def _img(src: str, alt: str) -> str:
    return f'<img src="{src}" alt="{esc(alt)}">'


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def _mistakes_section(rows: list[Graded]) -> str:
    ranked, unnamed, unattempted = mistakes(rows)
    parts = ["<h2>What to re-teach: the most frequent named mistakes</h2>"]
    if not ranked:
        parts.append("<p>No named mistake in the submissions graded.</p>")
    else:
        top = ranked[:TOP_MISTAKES]
        body = []
        for m in top:
            entry = MISTAKES.get(m.mistake)
            title = entry.title if entry else "(not in the catalogue)"
            (assignment, _), _ = m.where.most_common(1)[0]
            where = sections.section(m.mistake, assignment)
            seen = ", ".join(
                f"{label(item)} ({assignment}) ×{n}" for (assignment, item), n in m.where.items()
            )
            body.append(
                [
                    f"<code>{esc(m.mistake)}</code>",
                    esc(title),
                    str(m.times),
                    str(len(m.students)),
                    esc(seen),
                    esc(where) if where else "not cited in a lesson",
                ]
            )
        head = ["Mistake", "Title", "Times", "Students", "Where made", "Lesson section"]
        parts.append(table(head, body, numeric={2, 3}))
        chart = plots.mistake_counts([m.mistake for m in top], [m.times for m in top])
        parts.append(_img(chart, "how often each named mistake was made"))
        if len(ranked) > TOP_MISTAKES:
            parts.append(f"<p class='note'>{len(ranked) - TOP_MISTAKES} rarer ones not shown.</p>")
    parts.append(
        f"<p class='note'>{unnamed} other failures named no known mistake (their messages are "
        f"in each student's feedback); {unattempted} exercises or questions were not attempted "
        "(not defined, or not answered) in notebooks that attempted others.</p>"
    )
    return "\n".join(parts)


def _assignment_section(rows: list[Graded], assignment: str) -> str:
    mine = [g for g in rows if g.assignment == assignment]
    judged = [g for g in mine if g.status in JUDGED]
    max_points = mine[0].max_points
    counts = ", ".join(f"{n} {s}" for s in STATUSES if (n := sum(g.status == s for g in mine)))
    parts = [
        f"<h2>Assignment {esc(assignment)}</h2>",
        f"<p>{len(mine)} students: {esc(counts)}.</p>",
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
        parts.append("<h3>Pass rate per exercise and question</h3>")
        parts.append(
            f"<p class='note'>Of the {len(judged)} submissions judged (graded, late or blank).</p>"
        )
        parts.append(
            table(
                ["Exercise or question", "Points", "Passed", "Judged", "Pass rate"],
                body,
                numeric={1, 2, 3, 4},
            )
        )
        chart = plots.pass_rates([label(r.item) for r in rates], [r.rate for r in rates])
        parts.append(_img(chart, f"pass rate per exercise and question of {assignment}"))
    submitted = [g for g in mine if g.status != NOT_SUBMITTED]
    if submitted:
        totals = [g.total for g in submitted]
        parts.append("<h3>Score distribution</h3>")
        parts.append(
            f"<p>{len(submitted)} submissions (those never submitted left out): mean "
            f"{mean(totals):.2f}, median {median(totals):g}, best {max(totals):g}, of "
            f"{points(max_points)} points.</p>"
        )
        chart = plots.score_histogram(totals, max_points)
        parts.append(_img(chart, f"distribution of the totals of {assignment}"))
    return "\n".join(parts)


def _problems_section(rows: list[Graded]) -> str:
    parts = ["<h2>Could not be graded</h2>"]
    failed = [g for g in rows if g.status in (UNREADABLE, NOT_SUBMITTED, BLANK)]
    if failed:
        reasons = {
            NOT_SUBMITTED: "nothing submitted",
            BLANK: "nothing attempted in the notebook",
            UNREADABLE: "cannot be read",
        }
        body = [
            [esc(g.student), esc(g.assignment), esc(g.status), esc(g.error or reasons[g.status])]
            for g in failed
        ]
        parts.append(table(["Student", "Assignment", "Status", "Why"], body))
    else:
        parts.append("<p>Every submission was graded.</p>")
    parts.append("<h2>Late</h2>")
    late = [g for g in rows if g.status == LATE]
    if late:
        body = [
            [
                esc(g.student),
                esc(g.assignment),
                esc(f"{g.submitted:%Y-%m-%d %H:%M} UTC" if g.submitted else ""),
                points(g.penalty),
                esc("; ".join(n for n in g.notes if "after the due date" in n)),
            ]
            for g in late
        ]
        parts.append(
            table(["Student", "Assignment", "Submitted", "Penalty", "Delay"], body, numeric={3})
        )
    else:
        parts.append("<p>No late submission.</p>")
    return "\n".join(parts)


def report_html(rows: list[Graded], ignored: list[str] = (), missing: int = 0) -> str:
    """The whole report for ``rows``; ``ignored``: folders that are not assignments;
    ``missing``: rows of the grade table whose details this report lacks."""
    students = sorted({g.student for g in rows})
    assignments = sorted({g.assignment for g in rows})
    counts = [[esc(s), str(n)] for s in STATUSES if (n := sum(g.status == s for g in rows))]
    parts = [
        f"<p>{len(students)} students, {len(assignments)} assignments "
        f"({esc(', '.join(assignments))}), {len(rows)} rows in the grade table.</p>",
        table(["Status", "Rows"], counts, numeric={1}),
    ]
    if missing:
        parts.append(
            f"<p class='note'>{missing} rows of the grade table were graded before this report "
            "kept details: grade the class again without --student/--assignment to include "
            "them.</p>"
        )
    parts.append(_mistakes_section(rows))
    parts += [_assignment_section(rows, a) for a in assignments]
    parts.append(_problems_section(rows))
    if ignored:
        items = "".join(f"<li>{esc(p)}: not an assignment of the course</li>" for p in ignored)
        parts.append(f"<h2>Ignored folders</h2>\n<ul>{items}</ul>")
    return page("Class report", "\n".join(parts))


def write(path: Path, rows: list[Graded], graded: GradeTable, table_rows: list[dict]) -> Path:
    """Write the report of ``rows`` (the whole class, a regrade's earlier rows included)."""
    known = {(g.student, g.assignment) for g in rows}
    missing = sum((r["student"], r["assignment"]) not in known for r in table_rows)
    path.write_text(report_html(rows, graded.ignored, missing))
    return path

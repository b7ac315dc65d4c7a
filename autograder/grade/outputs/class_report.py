"""The class report (``<out stem>_report.html``): what to re-teach, in one self-contained page.

In the spirit of nbgrader's formgrader and Otter's reports: per assignment, the pass rate of each
exercise and question and the distribution of totals; across the class, the named mistakes made
most often, each with the lesson section that teaches it and the students who made it (the page
is the instructor's: it names students, and is never written into the feedback folder); and who
could not be graded, or was late, and why. The plots are matplotlib's, embedded as PNGs; nothing
is fetched.

A failure is counted once, at its root: an exercise that failed while an earlier exercise it is
built on (its reference in ``course_lib`` calls it, e.g. ``MultiHeadAttention`` calls
``merge_heads``) also failed in the same submission is a knock-on, counted apart. Every figure
of an assignment has one denominator: the submissions received (an unreadable one fails every
item and scores 0; those never submitted are left out, and counted).
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean, median

from autograder.core.mistakes import MISTAKES
from autograder.grade import COURSE
from autograder.grade.outputs import plots, sections
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
    label,
    lesson_of,
    notebook_order,
    plural,
)

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
            tree = ast.parse(source.read_text())
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
            if r.passed:
                continue
            if r.exercise in explained:
                knocked += 1
            elif not r.attempted:
                unattempted += 1
            elif r.mistake is None:
                unnamed += 1
            else:
                count = found.setdefault(r.mistake, MistakeCount(r.mistake))
                count.times += 1
                count.students.add(g.student)
                count.where[(g.assignment, r.exercise)] += 1
    ranked = sorted(found.values(), key=lambda m: (-m.times, -len(m.students), m.mistake))
    return ranked, unnamed, unattempted, knocked


def _img(src: str, alt: str) -> str:
    return f'<img src="{src}" alt="{esc(alt)}">'


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def _mistakes_section(rows: list[Graded]) -> str:
    ranked, unnamed, unattempted, knocked = mistakes(rows)
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
                    esc(", ".join(sorted(m.students))),
                    esc(seen),
                    esc(where) if where else "not cited in a lesson",
                ]
            )
        head = ["Mistake", "Title", "Times", "Students", "Who", "Where made", "Lesson section"]
        parts.append(table(head, body, numeric={2, 3}))
        chart = plots.mistake_counts([m.mistake for m in top], [m.times for m in top])
        parts.append(_img(chart, "how often each named mistake was made"))
        if len(ranked) > TOP_MISTAKES:
            parts.append(f"<p class='note'>{len(ranked) - TOP_MISTAKES} rarer ones not shown.</p>")
    parts.append(
        "<p class='note'>Each failure is counted once, at its root"
        + (
            f": {plural(knocked, 'failure')} of an exercise built on an earlier one that also "
            "failed (the earlier one is counted) left out. "
            if knocked
            else ". "
        )
        + f"{plural(unnamed, 'other failure')} named no "
        f"known mistake (their messages are in each student's feedback); "
        f"{plural(unattempted, 'item')} (exercises or questions) not attempted (not defined, "
        "or not answered) in notebooks that attempted others. The Who column names students: this "
        "page is for the instructor only.</p>"
    )
    return "\n".join(parts)


def _assignment_section(rows: list[Graded], assignment: str) -> str:
    mine = [g for g in rows if g.assignment == assignment]
    received = [g for g in mine if g.status in RECEIVED]
    max_points = mine[0].max_points
    counts = ", ".join(f"{n} {s}" for s in STATUSES if (n := sum(g.status == s for g in mine)))
    never = len(mine) - len(received)
    left_out = f"; {plural(never, 'student')} who never submitted left out" if never else ""
    parts = [
        f"<h2>Assignment {esc(assignment)}</h2>",
        f"<p>{plural(len(mine), 'student')}: {esc(counts)}. Every figure below is of the "
        f"{plural(len(received), 'submission')} received (an unreadable one passes nothing and "
        f"scores 0{left_out}).</p>",
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
            table(
                ["Exercise or question", "Points", "Passed", "Received", "Pass rate"],
                body,
                numeric={1, 2, 3, 4},
            )
        )
        chart = plots.pass_rates([label(r.item) for r in rates], [r.rate for r in rates])
        parts.append(_img(chart, f"pass rate per exercise and question of {assignment}"))
    if received:
        totals = [g.total for g in received]
        parts.append("<h3>Score distribution</h3>")
        parts.append(
            f"<p>Mean {mean(totals):.2f}, median {median(totals):g}, best {max(totals):g}, of "
            f"{points(max_points)} points.</p>"
        )
        chart = plots.score_histogram(totals, max_points)
        parts.append(_img(chart, f"distribution of the totals of {assignment}"))
    manual = [g for g in received if g.manual]
    if manual:
        body = [
            [esc(g.student), esc(label(r.exercise)), points(auto), points(r.points)]
            for g in manual
            for r in g.results
            if (auto := g.manual.get(r.exercise)) is not None
        ]
        parts.append("<h3>Scores set in formgrader</h3>")
        parts.append(
            table(["Student", "Exercise or question", "Grader", "Instructor"], body, numeric={2, 3})
        )
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
        f"<p>{plural(len(students), 'student')}, {plural(len(assignments), 'assignment')} "
        f"({esc(', '.join(assignments))}), {plural(len(rows), 'row')} in the grade table.</p>",
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

"""Grading a drill file: the course's checks for course exercises (:func:`judge.judge_file`),
this package's checks for the new drills, with the same engine (:func:`judge.judge_one`) in the
same sandbox, and the report with both catalogues' titles and hints."""

from __future__ import annotations

import pkgutil
import textwrap
from dataclasses import replace

from autograder.check.report import passing_note
from autograder.core.judge import judge_file, judge_one
from autograder.core.registry import Gradable
from autograder.core.result import Result, printable
from autograder.drill.extra.base import NewDrill, resolve
from autograder.drill.extra.judging import title_and_hint
from autograder.i18n import _, fill

POINTS = 1.0
TIME_LIMIT = 30.0  # seconds of CPU time for all the calls of one check


def exercises(drill: NewDrill) -> list[Gradable]:
    return [
        Gradable(
            name,
            "drill",
            resolve(check),
            POINTS,
            present(resolve(forbid) if isinstance(forbid, str) else forbid),
            TIME_LIMIT,
        )
        for name, (check, forbid) in drill.checks.items()
    ]


def present(names) -> tuple[str, ...]:
    """The names that exist in this torch (a newer function is not forbidden where it is absent)."""
    kept = []
    for n in names:
        if n.startswith("aten.") or any(c in n for c in "*?["):
            kept.append(n)
            continue
        try:
            pkgutil.resolve_name(n)
        except (ImportError, AttributeError, ValueError):
            continue
        kept.append(n)
    return tuple(kept)


def judge(path, drill) -> list[Result]:
    """The results of the drill's exercises on the file at ``path`` (ExtractError when it
    cannot be read)."""
    if not getattr(drill, "checks", None):
        return judge_file(path, drill.exercises)
    from autograder.core.extract import from_file
    from autograder.core.judge import _explain
    from autograder.sandbox.host.replies import LearnerProblem
    from autograder.sandbox.host.submission import Submission

    code = from_file(path)
    graded = exercises(drill)
    forbid = {ex.name: list(ex.forbid) for ex in graded}
    try:
        cells = [(c.label, c.source) for c in code.cells]
        probe = (
            [("the grader's probe", resolve(drill.probe))] if getattr(drill, "probe", "") else []
        )
        sub = Submission(cells + probe, forbid)
    except LearnerProblem as problem:  # the definitions themselves hang or kill the sandbox
        message, mistake = _explain(replace(graded[0], name="your code"), problem)
        message = _("Loading your code failed: {problem}").format(
            problem=message.split(": ", 1)[-1]
        )
        return [Result(ex.name, False, 0.0, ex.points, message, mistake) for ex in graded]
    with sub:
        return [judge_one(sub, ex) for ex in graded]


def human(file: str, results: list[Result]) -> str:
    """The report: as ``autograder.check.report.human``, with the titles of either catalogue."""
    width = max(len(r.exercise) for r in results)
    lines = [printable(file)]
    for r in results:
        status = _("PASS") if r.passed else _("FAIL")
        lines.append(f"  {status}  {r.exercise:<{width}}  {r.points:g}/{r.max_points:g}")
        if r.passed:  # with its note, as `check` shows it
            if passing_note(r):
                lines.append(textwrap.indent(printable(r.message), "      "))
            continue
        lines.append(textwrap.indent(printable(r.message), "      "))
        entry = title_and_hint(r.mistake, r.exercise)
        if r.mistake:
            text = (
                _("Looks like: {title} [{id}]. {hint}").format(
                    title=_(entry.title), id=r.mistake, hint=_(entry.hint)
                )
                if entry
                else _("Looks like: [{id}]").format(id=r.mistake)
            )
            lines.append(textwrap.indent(fill(text, 92), "      "))
    score, total = sum(r.points for r in results), sum(r.max_points for r in results)
    lines.append(
        _("Score: {score}/{total} ({passed} of {count} passed)").format(
            score=f"{score:g}",
            total=f"{total:g}",
            passed=sum(r.passed for r in results),
            count=len(results),
        )
    )
    return "\n".join(lines)

"""Grade a whole class: ``SUBMISSIONS_DIR/<student>/<assignment>/<notebook>.ipynb``.

Each notebook is judged in its own sandbox (a broken or hostile one fails only its own
exercises); several are judged at once; nothing under ``SUBMISSIONS_DIR`` is written. The result
is a CSV of points per student and exercise (and conceptual question, as ``answer_<id>``),
and a feedback file per student beside it
(``<out>_feedback/<student>.txt``). Grading is deterministic: a re-run gives the same table.
"""

from __future__ import annotations

import csv
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from autograder import report
from autograder.extract import ExtractError, from_file
from autograder.judge import NothingToGrade, Result, judge_code
from autograder.questions import QUESTIONS
from autograder.registry import all_exercises
from autograder.sandbox import warm_up


class GradeError(Exception):
    """The class cannot be graded at all (the CLI exits 2 with this message)."""


@dataclass
class Graded:
    student: str
    notebook: str  # "<assignment>/<notebook>.ipynb"
    results: list[Result] = field(default_factory=list)
    error: str | None = None  # the notebook could not be graded at all


@dataclass
class GradeTable:
    rows: list[Graded]
    out: Path
    feedback_dir: Path

    def students(self) -> list[str]:
        return sorted({g.student for g in self.rows})

    def all_passed(self) -> bool:
        return all(g.error is None and all(r.passed for r in g.results) for g in self.rows)

    def summary(self) -> str:
        n = len(self.students())
        ungradable = sum(g.error is not None for g in self.rows)
        text = f"Graded {len(self.rows)} notebooks of {n} students -> {self.out}"
        text += f" (feedback in {self.feedback_dir}/)"
        if ungradable:
            text += f"; {ungradable} notebooks could not be graded (see their feedback)"
        return text


def find_notebooks(root: Path) -> list[tuple[str, Path]]:
    """``(student, path)`` for every notebook in nbgrader's submitted layout, sorted."""
    if not root.is_dir():
        raise GradeError(f"{root}: no such folder. Give the folder with one folder per student.")
    found = sorted(
        (p.relative_to(root).parts[0], p)
        for p in root.glob("*/*/*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )
    if not found:
        raise GradeError(
            f"{root}: no notebooks found. Expected SUBMISSIONS_DIR/<student>/<assignment>/"
            "<notebook>.ipynb, as nbgrader lays out submitted/."
        )
    return found


def grade_notebook(student: str, path: Path, root: Path, time_limit=None) -> Graded:
    graded = Graded(student, str(path.relative_to(root / student)))
    try:
        graded.results = judge_code(from_file(path), time_limit=time_limit, questions=True)
    except (ExtractError, NothingToGrade) as e:
        graded.error = str(e)
    except Exception as e:  # never let one submission stop the class
        graded.error = f"the grader failed on this notebook: {type(e).__name__}: {e}"
    return graded


def _write_csv(table: GradeTable, exercises: list[str]) -> None:
    points: dict[str, dict[str, float]] = {s: {} for s in table.students()}
    for g in table.rows:
        for r in g.results:
            points[g.student][r.exercise] = points[g.student].get(r.exercise, 0.0) + r.points
    columns = exercises + [f"answer_{qid}" for qid in QUESTIONS]
    used = [e for e in columns if any(e in p for p in points.values())]
    maxima = {}
    for g in table.rows:
        for r in g.results:
            maxima[r.exercise] = r.max_points
    table.out.parent.mkdir(parents=True, exist_ok=True)
    with table.out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", *used, "total", "max"])
        max_total = sum(maxima[e] for e in used)
        for student, row in points.items():
            total = sum(row.values())
            writer.writerow(
                [student, *(f"{row.get(e, 0.0):g}" for e in used), f"{total:g}", f"{max_total:g}"]
            )


def _write_feedback(table: GradeTable) -> None:
    table.feedback_dir.mkdir(parents=True, exist_ok=True)
    for student in table.students():
        parts = []
        for g in (g for g in table.rows if g.student == student):
            if g.error:
                parts.append(f"{g.notebook}\n  could not be graded: {g.error}")
            else:
                parts.append(report.human(g.notebook, g.results))
        (table.feedback_dir / f"{student}.txt").write_text("\n\n".join(parts) + "\n")


def grade_class(
    submissions: str | Path, out: str | Path, *, workers: int = 2, time_limit: float | None = None
) -> GradeTable:
    root = Path(submissions).resolve()
    notebooks = find_notebooks(root)
    out = Path(out)
    warm_up()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(grade_notebook, s, p, root, time_limit) for s, p in notebooks]
        rows = [f.result() for f in tqdm(futures, desc="grading", unit="notebook")]
    table = GradeTable(rows, out, out.with_name(out.stem + "_feedback"))
    _write_csv(table, list(all_exercises()))
    _write_feedback(table)
    return table

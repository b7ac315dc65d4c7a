"""The sandboxed scores, written into nbgrader's gradebook (``gradebook.db`` of a course).

``python -m autograder grade submitted --gradebook COURSE_DIR`` grades the class in the sandbox
as always, then puts each score where ``nbgrader autograde`` would have put it, through
nbgrader's own ``Gradebook`` API: formgrader's manual review and overrides, ``nbgrader export``
and ``nbgrader generate_feedback``/``release_feedback`` then all work on the safe scores, and
learner code never ran in nbgrader's unsandboxed kernel.

Each exercise and question of a lesson is one nbgrader grade cell of the released notebook:
``grade_<exercise>`` (``grade_causal_mask``) and ``grade_answer_<id>`` (``grade_answer_04_1``),
worth the contract's points (tests/test_notebooks.py holds the notebooks to that). Only those
cells are written: their ``auto_score``, as nbgrader's SaveAutoGrades does. A ``manual_score``
an instructor gave in formgrader is never touched, so it still wins after a regrade (the cell is
marked for review again, as nbgrader marks it). Other grade cells (ones an instructor added for
manual grading) are left to formgrader.

The course's assignments must already be in the gradebook, made from the same release
(``make release``, or ``nbgrader generate_assignment``); students and submissions are created
where missing. Every check is made before the first write, so a refused gradebook is unchanged.

formgrader's pages of a submission, and ``nbgrader generate_feedback``, read the autograded
notebook (``autograded/<student>/<assignment>/<notebook>.ipynb``), so one is written for each
readable submission as nbgrader's autograde sanitises it (nbgrader's own preprocessors: outputs
cleared, ids deduplicated, kernelspec, locked and graded cells restored from the gradebook, the
metadata checked) but never run: under each graded cell, instead of what running it would print,
the grader's verdict on that exercise or question.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from autograder.check.report import mistake_line
from autograder.core.extract import read_notebook, read_submission
from autograder.core.items import lesson_items
from autograder.core.result import Result, printable
from autograder.grade.gradebook_written import Written
from autograder.grade.grading import (
    LATE,
    NOT_SUBMITTED,
    UNREADABLE,
    Graded,
    GradeError,
    GradeTable,
    find_submissions,
    lesson_of,
)
from autograder.grade.inert import id_problem, inert
from autograder.grade.outputs.files import write_text
from autograder.i18n import _
from autograder.sandbox.protocol import one_line

CONFIG = "nbgrader_config.py"
DB = "gradebook.db"
REGENERATE = "`make release` (or `nbgrader generate_assignment {name} --force`)"  # run in it


class GradebookError(GradeError):
    """The gradebook cannot take the scores (the CLI exits 2 with this message)."""


def cell_name(item: str) -> str:
    """The nbgrader grade cell that scores an exercise or question (``answer_04_1``)."""
    return f"grade_{item}"


def item_points(lesson: str) -> dict[str, float]:
    """What each exercise and question of a lesson is worth, in the grader's order."""
    return lesson_items(lesson)


@dataclass
class CourseGradebook:
    """A course's gradebook: its database URL and course id, as the course's nbgrader reads them."""

    url: str
    course_id: str
    coursedir: object = None  # nbgrader's CourseDirectory: where autograded/ notebooks go

    @classmethod
    def of(cls, where: str | Path) -> CourseGradebook:
        """The gradebook of a course folder (its ``nbgrader_config.py`` says where the database
        is; ``gradebook.db`` there by default), or of a ``.db`` file in a course folder."""
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        path = Path(where).resolve()
        db = path if path.suffix == ".db" or path.is_file() else None
        course = path.parent if db else path
        if not course.is_dir():
            said = _(
                "{where}: no such course folder. Give --gradebook the course folder (where "
                "nbgrader_config.py and {db} are) or its {db}."
            )
            raise GradebookError(said.format(where=where, db=DB))
        config = Config()
        if (course / CONFIG).is_file():
            try:
                config = PyFileConfigLoader(CONFIG, path=str(course)).load_config()
            except Exception as e:  # the instructor's own Python: whatever it raises, say where
                said = _("{file}: cannot be read ({why})")
                raise GradebookError(said.format(file=course / CONFIG, why=e)) from e
        coursedir = CourseDirectory(config=config)
        coursedir.root = str(course)
        url = f"sqlite:///{db}" if db else coursedir.db_url
        if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file():
            said = _(
                "{db}: no gradebook there yet. Make the course's gradebook first: run "
                "{command} in the course folder."
            )
            command = REGENERATE.format(name="ASSIGNMENT")
            raise GradebookError(said.format(db=url.removeprefix("sqlite:///"), command=command))
        return cls(url, coursedir.course_id, coursedir)

    @contextmanager
    def open(self):
        """nbgrader's ``Gradebook`` of the course, open for the ``with`` block."""
        from nbgrader.api import Gradebook
        from sqlalchemy.exc import SAWarning

        with warnings.catch_warnings():
            # nbgrader 0.9's add_submission makes SQLAlchemy warn ("not in session, add
            # operation along 'Notebook.submissions' will not proceed") on every first grade:
            # nbgrader's own models, nothing the instructor did or can change
            warnings.filterwarnings("ignore", category=SAWarning)
            with Gradebook(self.url, self.course_id) as gb:
                yield gb

    def due_dates(self) -> dict[str, datetime]:
        """The due dates the gradebook holds (``nbgrader db assignment add --duedate``, or
        formgrader's), by assignment, in UTC."""
        with self.open() as gb:
            return {a.name: a.duedate for a in gb.assignments if a.duedate is not None}

    def overlay(self, rows: list[Graded]) -> None:
        """Set each row's scores to what the gradebook holds, so that every output agrees with
        ``nbgrader export``: a grade cell's ``manual_score`` (set in formgrader) replaces the
        grader's points for that item (kept in ``Graded.manual``), and the submission's late
        penalty is the gradebook's. A score the instructor cleared gives the grader's back."""
        from nbgrader.api import MissingEntry

        with self.open() as gb:
            for g in rows:
                try:
                    submission = gb.find_submission(g.assignment, g.student)
                except MissingEntry:
                    continue
                manual = {
                    grade.name: grade.manual_score
                    for nb in submission.notebooks
                    for grade in nb.grades
                    if grade.manual_score is not None
                }
                auto = dict(g.manual)  # the grader's own points, where an overlay replaced them
                g.manual.clear()
                if manual and not g.results and lesson_of(g.assignment):  # scored by hand only
                    for item, top in item_points(lesson_of(g.assignment)).items():
                        g.results.append(Result(item, False, 0.0, top, g.error or "", None, False))
                for i, r in enumerate(g.results):
                    grader = auto.get(r.exercise, r.points)
                    score = manual.get(cell_name(r.exercise))
                    if score is not None:
                        g.manual[r.exercise] = grader
                    points = grader if score is None else float(score)
                    if points != r.points:
                        g.results[i] = replace(r, points=points)
                g.penalty = float(
                    sum(nb.late_submission_penalty or 0.0 for nb in submission.notebooks)
                )

    def cells(self, gb, name: str) -> dict[str, str]:
        """``{item: notebook}``: the notebook of the gradebook's ``name`` that holds each
        exercise's and question's grade cell; refuses a gradebook made from another release."""
        from nbgrader.api import MissingEntry

        lesson = lesson_of(name)
        try:
            found = gb.find_assignment(name)
        except MissingEntry:
            said = _(
                "{name} is not in the gradebook {url}: run {command} in the course folder, then "
                "grade again"
            )
            command = REGENERATE.format(name=name)
            raise GradebookError(said.format(name=name, url=self.url, command=command)) from None
        held = {c.name: (nb.name, c.max_score) for nb in found.notebooks for c in nb.grade_cells}
        where, problems = {}, []
        for item, points in item_points(lesson).items():
            notebook, max_score = held.get(cell_name(item), (None, None))
            if notebook is None:
                problems.append(
                    _("no grade cell {cell} for {item}").format(cell=cell_name(item), item=item)
                )
            elif max_score != points:
                said = _("{cell} is worth {there} points there, {item} {points}")
                problems.append(
                    said.format(
                        cell=cell_name(item),
                        there=f"{max_score:g}",
                        item=item,
                        points=f"{points:g}",
                    )
                )
            else:
                where[item] = notebook
        if problems:
            said = _(
                "the gradebook's {name} was not made from this release of the course "
                "({problems}): run {command} in the course folder"
            )
            command = REGENERATE.format(name=name)
            raise GradebookError(
                said.format(name=name, problems=_("; ").join(problems), command=command)
            )
        return where

    def check(self, submissions: str | Path, names: list[str] | None = None) -> None:
        """Refuse, before any grading, a gradebook that lacks an assignment to be graded."""
        if not names:
            try:
                found, _ignored = find_submissions(Path(submissions).resolve())
            except GradeError:
                return  # grading says what is wrong with the folder
            folders = [f for f in found.values() if isinstance(f, dict)]
            names = sorted({a for f in folders for a in f})
        with self.open() as gb:
            for name in names:
                if lesson_of(name):
                    self.cells(gb, name)

    def write(self, table: GradeTable, submissions: str | Path | None = None) -> Written:
        """Write every row of ``table`` into the gradebook, and, given the ``submissions``
        folder graded, the autograded notebooks (see the module's docstring)."""
        from nbgrader.api import MissingEntry

        written = Written(self.url)
        with self.open() as gb:
            cells = {name: self.cells(gb, name) for name in {g.assignment for g in table.rows}}
            for g in table.rows:
                problem = id_problem(g.student)
                if problem is not None:  # never added: the other students' rows go on
                    said = _("the student folder {name} ({problem})")
                    written.refused.append(said.format(name=repr(g.student), problem=problem))
                    continue
                try:
                    gb.find_student(g.student)
                except MissingEntry:
                    gb.add_student(g.student)
                    written.students += 1
                try:
                    submission = gb.find_submission(g.assignment, g.student)
                except MissingEntry:
                    if g.status == NOT_SUBMITTED:
                        continue  # nbgrader export counts it 0, as the table does
                    submission = gb.add_submission(g.assignment, g.student)
                    written.created += 1
                if g.submitted is not None:
                    recorded = submission.timestamp
                    if recorded is not None and g.submitted < recorded:
                        written.earlier.append(f"{one_line(g.student)}/{g.assignment}")
                    submission.timestamp = g.submitted
                points = {r.exercise: r.points for r in g.results}  # none: 0 (unreadable...)
                notebooks = set()
                for item, notebook in cells[g.assignment].items():
                    grade = gb.find_grade(cell_name(item), notebook, g.assignment, g.student)
                    grade.auto_score = points.get(item, 0.0)
                    # as nbgrader's SaveAutoGrades: a manual score is reviewed again
                    grade.needs_manual_grade = grade.manual_score is not None or (
                        g.status == UNREADABLE
                    )
                    if grade.manual_score is not None:
                        written.kept.append(f"{g.student}/{g.assignment}/{cell_name(item)}")
                    notebooks.add(notebook)
                for i, notebook in enumerate(sorted(notebooks)):
                    nb = gb.find_submission_notebook(notebook, g.assignment, g.student)
                    nb.late_submission_penalty = g.penalty if g.status == LATE and not i else 0.0
                gb.db.commit()
                written.submissions += 1
                if submissions is not None and self.coursedir is not None:
                    try:  # a notebook that cannot be shown is that student's note, not the class's
                        self._autograded(g, Path(submissions), sorted(notebooks)[0], written)
                    except Exception as e:
                        why = f"{one_line(g.student)}/{g.assignment}: {one_line(e)}"
                        written.skipped.append(why)
        return written

    def _released(self, assignment: str, notebook: str) -> tuple[set[str], set[str], dict]:
        """Of the course's own notebook (release/, source/): its markdown and raw cells, its
        cells' grade ids, and its ``language_info``."""
        import nbformat

        trusted, ids, language = set(), set(), {}  # a copy of one holds nothing of the learner's
        for step in (self.coursedir.release_directory, self.coursedir.source_directory):
            path = Path(self.coursedir.format_path(step, ".", assignment)) / f"{notebook}.ipynb"
            if path.is_file() and not path.is_symlink():
                nb = nbformat.read(path, as_version=4)
                trusted |= {c.source for c in nb.cells if c.cell_type in ("markdown", "raw")}
                ids |= {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
                language = language or dict(nb.metadata.get("language_info", {}))
        return trusted, ids - {None}, language

    def _autograded(self, g: Graded, submissions: Path, notebook: str, written: Written) -> None:
        """The autograded notebook of one submission, or (unreadable: none) the stale one gone."""
        step = self.coursedir.autograded_directory
        folder = self.coursedir.format_path(step, g.student, g.assignment)
        target = Path(folder) / f"{notebook}.ipynb"
        if g.status == UNREADABLE or not g.notebook:
            if target.is_file() and not target.is_symlink():
                target.unlink()
            written.skipped.append(f"{g.student}/{g.assignment}: {g.status}")
            return
        import nbformat

        try:
            nb = sanitised(
                read_submission(submissions / g.student / g.assignment / g.notebook),
                {"db_url": self.url, "assignment": g.assignment, "notebook": notebook},
                *self._released(g.assignment, notebook),
            )
            verdicts = {cell_name(r.exercise): r for r in g.results}
            for cell in nb.cells:
                result = verdicts.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
                if result is not None and cell.cell_type == "code":
                    cell.outputs = [verdict_output(result)]
            text = nbformat.writes(nb)
        except Exception as e:  # nbgrader refuses the notebook's metadata: say so, grade stands
            written.skipped.append(f"{one_line(g.student)}/{g.assignment}: {one_line(e)}")
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        write_text(target, text)  # atomic; a lone surrogate is written as its escape
        written.autograded += 1


MAX_CELLS = 2000  # in a notebook shown on formgrader's page (the course's have about 60)


def sanitised(text: str, resources: dict, trusted=frozenset(), ids=None, language=None):
    """A submitted notebook as nbgrader's autograde sanitises it before running it (which this
    never does): nbgrader's own preprocessors, reading the release from the gradebook. Given the
    release's grade ``ids``, a learner cell's nbgrader metadata naming another is dropped first
    (``OverwriteCells`` asks the gradebook about each one: red team round 22); the release's
    ``language_info`` replaces the learner's, with Python's lexer (it picks formgrader's
    highlighter). Only nbformat 4 is read (``read_notebook``)."""
    from nbgrader.preprocessors import (
        CheckCellMetadata,
        ClearOutput,
        DeduplicateIds,
        OverwriteCells,
        OverwriteKernelspec,
    )

    nb = read_notebook(text)
    if len(nb.cells) > MAX_CELLS:
        raise ValueError(f"{len(nb.cells)} cells, more than the {MAX_CELLS} shown")
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        if ids is not None and meta.get("nbgrader", {}).get("grade_id") not in ids:
            meta.pop("nbgrader", None)
    # formgrader highlights every code cell with the lexer language_info names, "ipython3" when
    # none: quadratic in a run of blank lines, and it lets a cell's magics_language pick any
    # lexer (round 23): Python's own lexer, linear, whatever the release or the learner says.
    nb.metadata["language_info"] = {**(language or {"name": "python"}), "pygments_lexer": "python"}
    for cell in nb.cells:
        cell.get("metadata", {}).pop("magics_language", None)
    state = {"nbgrader": dict(resources)}
    for step in (
        ClearOutput(),
        DeduplicateIds(),
        OverwriteKernelspec(),
        OverwriteCells(add_missing_cells=True),  # every graded cell shows its verdict
        CheckCellMetadata(),
    ):
        nb, state = step.preprocess(nb, state)
    return inert(nb, trusted)


def verdict_output(r: Result):
    """The grader's verdict on one exercise or question, as the output of its graded cell."""
    import nbformat

    lines = [f"{'PASS' if r.passed else 'FAIL'}  {r.exercise}  {r.points:g}/{r.max_points:g}"]
    if not r.passed:
        lines += [printable(r.message)] + [x for x in [mistake_line(r.mistake)] if x]
    lines.append("(graded by the course's sandboxed grader; this cell was not run)")
    stream = "stdout" if r.passed else "stderr"
    return nbformat.v4.new_output("stream", name=stream, text="\n".join(lines) + "\n")

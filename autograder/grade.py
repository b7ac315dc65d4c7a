"""Grade a whole class: ``SUBMISSIONS_DIR/<student>/<assignment>/<notebook>.ipynb``.

An assignment is a lesson (``04_softmax_masks`` is lesson 04). Each submission is scored only on
its own lesson's exercises and questions, so the maximum of an assignment is fixed by the course,
never by what a submission defines; whatever else it defines is ignored, with a note. Each one is
judged in its own sandbox (a broken or hostile one fails only its own exercises); several are
judged at once; nothing under ``SUBMISSIONS_DIR`` is written, and no symbolic link in it is
followed.

The result is a CSV with one row per student and assignment: a status (see ``STATUSES``), the
points of each exercise and question (``answer_<id>``) in notebook order, the assignment's total
and maximum, and the submission's time. Beside it, one feedback file per student and assignment
(``<out>_feedback/<student>/<assignment>.txt``) that names only the learner's own file. Grading is
deterministic: a re-run gives the same table. ``students``/``assignments`` regrade a subset and
update the existing table in place.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from autograder import report
from autograder.extract import ExtractError, from_file, read_submission
from autograder.judge import Result, assignment, judge_assignment, printable
from autograder.sandbox import close_kept, isolated, strong_isolation_available

# What the table says about each student and assignment, besides the points.
GRADED = "graded"  # judged; on time, or no due date or no time to compare with
LATE = "late"  # judged, and submitted after the due date (a penalty only if one is given)
BLANK = "blank"  # readable, but not one exercise or question of the assignment attempted
UNREADABLE = "unreadable"  # there is something, but it cannot be read as a notebook
NOT_SUBMITTED = "not-submitted"  # no submission for this assignment
STATUSES = (GRADED, LATE, BLANK, UNREADABLE, NOT_SUBMITTED)

RELEASE = Path(__file__).resolve().parents[1] / "notebooks"  # the learners' notebooks
TIMESTAMP = "timestamp.txt"  # nbgrader writes the submission time here


class GradeError(Exception):
    """The class cannot be graded at all (the CLI exits 2 with this message)."""


WEAK_SANDBOX = (
    "this machine has no strong sandbox (bubblewrap): learner code would run with process "
    "isolation only, where a hostile submission can read other students' work and the course's "
    "answers, or change the grade table. Install it (as root: apt-get install -y bubblewrap), "
    "or pass --allow-weak-sandbox to grade anyway, at that risk."
)


@dataclass
class Graded:
    student: str
    assignment: str
    status: str  # one of STATUSES
    max_points: float
    notebook: str = ""  # the file graded, as the learner named it (never a server path)
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was ignored, lateness
    error: str | None = None  # why the submission could not be graded at all
    submitted: datetime | None = None  # from nbgrader's timestamp.txt (UTC)
    penalty: float = 0.0  # points taken off for lateness

    @property
    def total(self) -> float:
        return sum(r.points for r in self.results) - self.penalty


@dataclass
class GradeTable:
    rows: list[Graded]
    out: Path
    feedback_dir: Path
    ignored: list[str] = field(default_factory=list)  # folders that are not assignments

    def students(self) -> list[str]:
        return sorted({g.student for g in self.rows})

    def summary(self) -> str:
        counts = {s: sum(g.status == s for g in self.rows) for s in STATUSES}
        text = (
            f"Graded the class: {len(self.students())} students, "
            f"{len({g.assignment for g in self.rows})} assignments -> {self.out} "
            f"(feedback in {self.feedback_dir}/): "
            + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        )
        ignored = [
            f"  ignored {printable(p)}: not an assignment of the course" for p in self.ignored
        ]
        return "\n".join([text, *ignored])


# -- reading the submissions folder, without following links ----------------------------------
@functools.cache
def released() -> dict[str, str]:
    """The course's assignments, as released in ``notebooks/``: folder name -> lesson."""
    if not RELEASE.is_dir():
        return {}
    return {p.name: p.name[:2] for p in RELEASE.iterdir() if re.match(r"\d\d_", p.name)}


def lesson_of(name: str) -> str | None:
    """The lesson an assignment folder is (``04_softmax_masks`` -> ``04``), or None when it is
    not one of the course's: a released folder name, or (where nothing is released) any name
    that starts with a lesson number that has exercises or questions."""
    match = re.match(r"(\d\d)(?:_|$)", name)
    lesson = released().get(name) if released() else match and match[1]
    return lesson if lesson and assignment(lesson).items else None


def _entries(folder: Path) -> list[os.DirEntry]:
    with os.scandir(folder) as it:
        return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)


LINKED_STUDENT = "your submission folder is a symbolic link, which the grader does not follow"
LINKED_ASSIGNMENT = "the assignment folder is a symbolic link, which the grader does not follow"


@dataclass
class _Folder:
    path: Path | None = None  # the student's folder for this assignment
    refused: str | None = None  # why it is not read


def find_submissions(root: Path) -> tuple[dict[str, dict[str, _Folder] | str], list[str]]:
    """``{student: {assignment: folder}}`` (or, for a student, why their folder is refused) and
    the folders that are not assignments of the course."""
    if not root.is_dir():
        raise GradeError(f"{root}: no such folder. Give the folder with one folder per student.")
    students: dict[str, dict[str, _Folder] | str] = {}
    ignored = []
    for entry in _entries(root):
        if entry.is_symlink():
            students[entry.name] = LINKED_STUDENT
            continue
        if not entry.is_dir(follow_symlinks=False):
            continue
        folders = students.setdefault(entry.name, {})
        for sub in _entries(Path(entry.path)):
            if lesson_of(sub.name) is None:
                if sub.is_dir(follow_symlinks=False):
                    ignored.append(f"{entry.name}/{sub.name}")
            elif sub.is_symlink():
                folders[sub.name] = _Folder(refused=LINKED_ASSIGNMENT)
            elif sub.is_dir(follow_symlinks=False):
                folders[sub.name] = _Folder(Path(sub.path))
    if not students:
        raise GradeError(
            f"{root}: no student folders found. Expected SUBMISSIONS_DIR/<student>/<assignment>/"
            "<notebook>.ipynb, as nbgrader lays out submitted/."
        )
    return students, ignored


def _notebook(folder: Path, name: str) -> tuple[Path | None, str | None]:
    """The notebook to grade in an assignment folder (``<assignment>.ipynb`` first), or why none."""
    notebooks = [e.name for e in _entries(folder) if e.name.endswith(".ipynb")]
    if f"{name}.ipynb" in notebooks:
        return folder / f"{name}.ipynb", None
    if len(notebooks) == 1:
        return folder / notebooks[0], None
    if not notebooks:
        return None, None
    return None, (
        f"{len(notebooks)} notebooks ({', '.join(notebooks)}) and none named {name}.ipynb: "
        "the grader cannot tell which one to grade"
    )


def _submitted(folder: Path) -> tuple[datetime | None, str | None]:
    """The time in nbgrader's ``timestamp.txt`` (UTC), or a note on why it could not be read."""
    if not os.path.lexists(folder / TIMESTAMP):
        return None, None
    from nbgrader.utils import parse_utc  # nbgrader's own reading of the file it writes

    try:
        return parse_utc(read_submission(folder / TIMESTAMP, limit=200).strip()), None
    except (ExtractError, ValueError, OverflowError, TypeError) as e:
        return None, f"{TIMESTAMP} could not be read ({e}); lateness not checked"


# -- due dates ---------------------------------------------------------------------------------
def parse_due(text: str) -> datetime:
    """A due date as nbgrader reads one ("2026-12-01 23:59:00 UTC", ISO 8601...), in UTC."""
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError) as e:
        raise GradeError(
            f"cannot read the due date {text!r} ({e}); give e.g. '2026-12-01 23:59:00 UTC'"
        ) from e


def due_dates(given: list[str] | None, config: Path | None) -> dict[str | None, datetime]:
    """Due dates by assignment (``None``: every assignment), from ``nbgrader_config.py``'s
    ``c.Autograder.due_dates = {"04_softmax_masks": "2026-12-01 23:59 UTC"}`` and then the
    command line's ``--due [ASSIGNMENT=]DATE``, which wins."""
    dates: dict[str | None, datetime] = {}
    if config is not None and config.is_file():
        from traitlets.config.loader import PyFileConfigLoader

        try:
            loaded = PyFileConfigLoader(config.name, path=str(config.parent)).load_config()
        except Exception as e:  # the instructor's own Python: whatever it raises, say where
            raise GradeError(f"{config}: cannot be read ({type(e).__name__}: {e})") from e
        if "due_dates" in loaded.Autograder:
            configured = loaded.Autograder.due_dates
            if isinstance(configured, str):  # one date for every assignment
                configured = {None: configured}
            if not isinstance(configured, dict):
                raise GradeError(
                    f"{config}: c.Autograder.due_dates must map assignments to dates, e.g. "
                    "{'04_softmax_masks': '2026-12-01 23:59 UTC'}"
                )
            for name, when in configured.items():
                dates[name] = parse_due(str(when))
    for item in given or []:
        name, sep, when = item.partition("=")
        if sep and lesson_of(name):
            dates[name] = parse_due(when)
        else:
            dates[None] = parse_due(item)
    return dates


# -- grading -----------------------------------------------------------------------------------
@functools.cache
def notebook_order(lesson: str) -> tuple[str, ...]:
    """The lesson's exercises and questions in the order its released notebook asks them (the
    contract's order where there is no release)."""
    work = assignment(lesson)
    order = []
    for release in sorted(RELEASE.glob(f"{lesson}_*/{lesson}_*.ipynb"))[:1]:
        import nbformat

        for cell in nbformat.read(release, as_version=4).cells:
            if cell.cell_type == "code":
                for m in re.finditer(r"\b(?:def|class)\s+(\w+)|\b(answer_\d+_\d+)\b", cell.source):
                    item = m[1] or m[2]
                    if item in work.items and item not in order:
                        order.append(item)
    return tuple(order + [item for item in work.items if item not in order])


def grade_one(
    student: str,
    name: str,
    folder: _Folder | str | None,
    due: datetime | None,
    time_limit: float | None = None,
    late_penalty: float = 0.0,
    allow_weak_sandbox: bool = False,
) -> Graded:
    """One student's submission of one assignment; never raises. A late one loses the fraction
    ``late_penalty`` of its points.

    It is judged in this thread's sandbox, kept from one submission to the next but never shared
    by two at once, and reset between them (every process killed, its files emptied): starting
    a sandbox per submission costs seconds of CPU each (see SECURITY.md)."""
    work = assignment(lesson_of(name))
    graded = Graded(student, name, NOT_SUBMITTED, work.max_points)
    if isinstance(folder, str) or (folder is not None and folder.refused):
        graded.status, graded.error = (
            UNREADABLE,
            folder if isinstance(folder, str) else folder.refused,
        )
        return graded
    if folder is None:
        return graded
    try:
        path, why = _notebook(folder.path, name)
        if why:
            graded.status, graded.error = UNREADABLE, why
            return graded
        if path is None:
            graded.error = "the assignment folder has no notebook"
            return graded
        graded.notebook = path.name
        graded.submitted, note = _submitted(folder.path)
        graded.notes += [note] if note else []
        code = from_file(path, label=path.name)
        with isolated(allow_weak=allow_weak_sandbox, fresh=False):
            results, notes = judge_assignment(code, work, time_limit=time_limit)
    except ExtractError as e:
        graded.status, graded.error = UNREADABLE, str(e)
        return graded
    except Exception as e:  # never let one submission stop the class
        graded.status = UNREADABLE
        detail = str(e).replace(str(folder.path), name)  # never a server path in feedback
        graded.error = f"the grader failed on this notebook: {type(e).__name__}: {detail}"
        return graded
    order = notebook_order(work.lesson)
    graded.results = sorted(results, key=lambda r: order.index(r.exercise))
    graded.notes += notes
    graded.status = GRADED
    if not any(r.attempted for r in results):
        graded.status = BLANK
    elif due is not None and graded.submitted is None:
        graded.notes.append(f"no {TIMESTAMP} in the submission: lateness not checked")
    elif due is not None and graded.submitted > due:
        graded.status = LATE
        graded.penalty = round(late_penalty * graded.total, 6)
        penalty = f"late penalty: -{graded.penalty:g} points" if late_penalty else "no penalty"
        graded.notes.append(
            f"submitted {graded.submitted:%Y-%m-%d %H:%M} UTC, {_delay(graded.submitted - due)} "
            f"after the due date ({due:%Y-%m-%d %H:%M} UTC); {penalty}"
        )
    return graded


def _delay(delta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.1f} hours" if hours < 48 else f"{hours / 24:.1f} days"


# -- writing the table and the feedback ---------------------------------------------------------
def csv_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula gets a quote first."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def safe_name(name: str) -> str:
    """A file name for a student or assignment: letters, digits, ``.``, ``_`` and ``-`` (never
    first). A name that had to change gets a digest of the original: two never share a file."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".-") or "_"
    if safe != name:
        safe = f"{safe[:64]}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    return safe


FIXED = ["student", "assignment", "status"]
TAIL = ["penalty", "total", "max", "submitted"]


def _row(g: Graded) -> dict[str, str]:
    row = {"student": g.student, "assignment": g.assignment, "status": g.status}
    row.update({r.exercise: f"{r.points:g}" for r in g.results})
    row["penalty"] = f"{g.penalty:g}" if g.penalty else ""
    row["total"], row["max"] = f"{g.total:g}", f"{g.max_points:g}"
    row["submitted"] = f"{g.submitted:%Y-%m-%d %H:%M:%S}" if g.submitted else ""
    return row


def _unescape(text: str) -> str:
    return text[1:] if text[:1] == "'" and text[1:2] in ("=", "+", "-", "@", "\t", "\r") else text


def _write_csv(table: GradeTable, keep: list[dict[str, str]]) -> None:
    """The table: ``keep`` (rows of an earlier run not regraded) and this run's rows, sorted."""
    rows = keep + [_row(g) for g in table.rows]
    rows.sort(key=lambda r: (r["student"], r["assignment"]))
    items = []
    for name in sorted({r["assignment"] for r in rows}):
        lesson = lesson_of(name)
        items += [i for i in notebook_order(lesson) if i not in items] if lesson else []
    extra = sorted({k for r in rows for k in r} - set(FIXED + TAIL + items))
    columns = FIXED + items + extra + TAIL
    table.out.parent.mkdir(parents=True, exist_ok=True)
    with table.out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for r in rows:
            writer.writerow([csv_cell(r.get(c, "")) for c in columns])


def read_table(path: Path) -> list[dict[str, str]]:
    """The rows of an earlier table (cells as they were before escaping)."""
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        rows = [{k: _unescape(v) for k, v in row.items()} for row in csv.DictReader(f)]
    if rows and not {"student", "assignment"} <= set(rows[0]):
        raise GradeError(
            f"{path}: not a grade table of this grader (no student and assignment "
            "columns); give another --out or remove it"
        )
    return rows


def feedback_text(g: Graded) -> str:
    head = f"{g.assignment}: {g.status}"
    if g.status == NOT_SUBMITTED:
        why = f" ({g.error})" if g.error else ""
        return f"{head}\nNothing was submitted{why}.\nScore: 0/{g.max_points:g}\n"
    if g.error:
        return f"{head}\ncould not be graded: {printable(g.error)}\nScore: 0/{g.max_points:g}\n"
    text = f"{head}\n{report.human(g.notebook, g.results, g.notes)}\n"
    if g.penalty:
        text += f"After the late penalty: {g.total:g}/{g.max_points:g}\n"
    return text


def _write_feedback(table: GradeTable) -> None:
    for g in table.rows:
        folder = table.feedback_dir / safe_name(g.student)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{safe_name(g.assignment)}.txt").write_text(feedback_text(g))


def run_here(tasks: list[tuple], workers: int) -> list[Graded]:
    """``grade_one(*task)`` for every task, in order, ``workers`` at once on this machine."""
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(grade_one, *task) for task in tasks]
            return [f.result() for f in tqdm(futures, desc="grading", unit="submission")]
    finally:
        close_kept()


def grade_class(
    submissions: str | Path,
    out: str | Path,
    *,
    workers: int = 2,
    time_limit: float | None = None,
    students: list[str] | None = None,
    assignments: list[str] | None = None,
    due: list[str] | None = None,
    config: str | Path | None = "nbgrader_config.py",
    allow_weak_sandbox: bool = False,
    late_penalty: float = 0.0,
    run: Callable[..., list[Graded]] | None = None,
) -> GradeTable:
    """Grade the class (or just ``students`` and ``assignments``, updating the table ``out``).

    ``run(tasks, allow_weak=...)`` grades the tasks elsewhere (``grade_one(*task)`` each, the
    results in order), e.g. on a Dask cluster (``autograder.cluster.on_cluster(address)``),
    whose workers are checked for the strong sandbox there: this machine then runs no learner
    code."""
    if run is None and not allow_weak_sandbox and not strong_isolation_available():
        raise GradeError(WEAK_SANDBOX)
    if not 0.0 <= late_penalty <= 1.0:
        raise GradeError(
            f"the late penalty is a fraction of the points, 0 to 1; got {late_penalty}"
        )
    for name in assignments or []:
        if lesson_of(name) is None:
            raise GradeError(
                f"{name}: not an assignment of the course (its folder name starts "
                "with the lesson number, e.g. 04_softmax_masks)"
            )
    dates = due_dates(due, Path(config) if config else None)
    root = Path(submissions).resolve()
    found, ignored = find_submissions(root)
    names = assignments or sorted({a for f in found.values() if isinstance(f, dict) for a in f})
    if not names:
        raise GradeError(
            f"{root}: no assignment folders found. Expected SUBMISSIONS_DIR/<student>/"
            "<assignment>/<notebook>.ipynb, as nbgrader lays out submitted/, with assignments "
            "named after the lessons (04_softmax_masks)."
        )
    who = students or sorted(found)
    out = Path(out)
    regrading = bool(students or assignments)
    keep = [
        r
        for r in (read_table(out) if regrading else [])
        if not (r["student"] in who and r["assignment"] in names)
    ]
    tasks = []
    for student in who:
        folders = found.get(student, {})
        for name in names:
            folder = folders if isinstance(folders, str) else folders.get(name)
            due_date = dates.get(name, dates.get(None))
            tasks.append(
                (student, name, folder, due_date, time_limit, late_penalty, allow_weak_sandbox)
            )
    if run is None:
        rows = run_here(tasks, workers)
    else:
        rows = run(tasks, allow_weak=allow_weak_sandbox)
    table = GradeTable(rows, out, out.with_name(out.stem + "_feedback"), ignored)
    _write_csv(table, keep)
    _write_feedback(table)
    return table

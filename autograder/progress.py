"""Where a learner stands in the course: ``python -m autograder progress [NOTEBOOKS_DIR]``.

It grades the learner's own working notebooks (``NOTEBOOKS_DIR/<lesson>/<lesson>.ipynb``, by
default ``notebooks/``) exactly as ``check`` does (:func:`autograder.core.judge.judge_file`, in the
sandbox, the notebooks only read) and shows, lesson by lesson, how many of its exercises and
conceptual questions pass, with a bar, and which lesson to open next. Lesson 00 shows the same
view as a widget (:func:`widget`).

The lessons are the folders of ``autograder/lessons`` that have a notebook in NOTEBOOKS_DIR; a
lesson's exercises are its rows of the contract table, its questions its ``questions.py``.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass
from pathlib import Path

from autograder.core import lesson_folders
from autograder.core.extract import ExtractError
from autograder.core.items import lesson_items
from autograder.core.judge import NothingToGrade, judge_file
from autograder.core.result import Result
from autograder.i18n import _, ljust, rjust
from autograder.service import client as service

BAR_WIDTH = 20


@dataclass(frozen=True)
class LessonProgress:
    lesson: str  # "03_scaling"
    notebook: Path
    exercises: tuple[str, ...]  # the lesson's exercises, in contract order
    questions: tuple[str, ...]  # its question ids, "03_1", ...
    passed: frozenset[str]  # the exercises and questions (as "answer_03_1") that pass
    problem: str | None = None  # why the notebook could not be graded, if it could not

    @property
    def exercises_passed(self) -> int:
        return sum(name in self.passed for name in self.exercises)

    @property
    def questions_passed(self) -> int:
        return sum(f"answer_{qid}" in self.passed for qid in self.questions)

    @property
    def total(self) -> int:
        return len(self.exercises) + len(self.questions)

    @property
    def done(self) -> int:
        return self.exercises_passed + self.questions_passed

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


def _exercises_and_questions(lesson: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A lesson's exercises and question ids, from its items (``lesson_items``)."""
    items = lesson_items(lesson)
    exercises = tuple(n for n in items if not n.startswith("answer_"))
    questions = tuple(n.removeprefix("answer_") for n in items if n.startswith("answer_"))
    return exercises, questions


def _in_service(notebook: Path) -> list[Result] | None:
    """The warm grader's results for a notebook (None: grade it here instead)."""
    reply = service.judge(
        {"file": str(Path(notebook).resolve()), "label": str(notebook), "questions": True}
    )
    if reply is None:
        return None
    if "extract_error" in reply:
        raise ExtractError(reply["extract_error"])
    if "nothing" in reply:
        raise NothingToGrade(reply["nothing"])
    return [Result(**r) for r in reply["results"]]


def _here(notebook: Path) -> list[Result]:
    return judge_file(notebook, questions=True)


def lesson_progress(lesson: str, notebook: Path, grade) -> LessonProgress | None:
    """Grade one lesson's notebook with ``grade``, as ``check`` does (:func:`_here`: in this
    process; :func:`_in_service`: in the warm grader, None where it cannot, and then so is this);
    a blank or unreadable one passes nothing."""
    exercises, questions = _exercises_and_questions(lesson)
    try:
        results = grade(notebook)
        if results is None:
            return None
    except NothingToGrade:  # nothing written (or every definition deleted): nothing passes
        results = []
    except ExtractError as e:
        return LessonProgress(lesson, notebook, exercises, questions, frozenset(), str(e))
    passed = frozenset(r.exercise for r in results if r.passed)
    return LessonProgress(lesson, notebook, exercises, questions, passed)


def course_progress(notebooks_dir: str | Path = "notebooks") -> list[LessonProgress]:
    """Every lesson with a notebook in ``notebooks_dir``, in course order."""
    root = Path(notebooks_dir)
    if not root.is_dir():
        raise FileNotFoundError(
            _("{root} is not a folder (expected your notebooks/ folder)").format(root=root)
        )
    found = [(name, root / name / f"{name}.ipynb") for name in lesson_folders.lessons()]
    found = [(name, path) for name, path in found if path.is_file()]
    if not found:
        raise FileNotFoundError(
            _("no lesson notebook in {root}: expected e.g. {root}/00_setup/00_setup.ipynb").format(
                root=root
            )
        )

    # One request per lesson, at once: the warm grader grades as many as it has sandboxes (one
    # per core). What it cannot take is graded here afterwards, one lesson after the other. Each
    # request in a copy of this context: the language chosen here (i18n) is a context variable.
    def served(context, lesson):
        return context.run(lesson_progress, *lesson, _in_service)

    with ThreadPoolExecutor(max_workers=min(len(found), os.cpu_count() or 1)) as pool:
        progress = list(pool.map(served, [copy_context() for _l in found], found))
    return [p or lesson_progress(*lesson, _here) for p, lesson in zip(progress, found, strict=True)]


def next_lesson(progress: list[LessonProgress]) -> LessonProgress | None:
    """The first lesson that does not pass entirely, or None when all of them do."""
    return next((p for p in progress if p.done < p.total), None)


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    filled = round(fraction * width)
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _count(passed: int, total: int) -> str:
    return f"{passed}/{total}" if total else "-"


def table(progress: list[LessonProgress]) -> str:
    """The plain-text view: one row per lesson, a total, and which lesson to open next."""
    width = max(len(p.lesson) for p in progress)
    head = [ljust(_("lesson"), width), rjust(_("exercises"), 9), rjust(_("questions"), 9)]
    lines = ["  ".join(head) + f"  {'':<{BAR_WIDTH + 2}}  " + _("done")]
    for p in progress:
        lines.append(
            f"{p.lesson:<{width}}  {_count(p.exercises_passed, len(p.exercises)):>9}  "
            f"{_count(p.questions_passed, len(p.questions)):>9}  {bar(p.fraction)}  "
            f"{p.fraction:>4.0%}"
            + (_("  ({problem})").format(problem=p.problem) if p.problem else "")
        )
    done, total = sum(p.done for p in progress), sum(p.total for p in progress)
    lines.append(
        "\n"
        + _("Course: {done}/{total} passed ({percent}).").format(
            done=done, total=total, percent=f"{done / total if total else 1:.0%}"
        )
    )
    lines.append(summary(progress))
    return "\n".join(lines)


def summary(progress: list[LessonProgress]) -> str:
    """Which lesson to open next, in one sentence."""
    nxt = next_lesson(progress)
    if nxt is None:
        return _("Every exercise and question passes: well done.")
    return _("Open next: {notebook} ({done}/{total} passed).").format(
        notebook=nxt.notebook, done=nxt.done, total=nxt.total
    )


def widget(notebooks_dir: str | Path = ".."):
    """The same view as ipywidgets: a progress bar per lesson (lesson 00 runs this).

    ``notebooks_dir`` defaults to ``..``: a lesson's kernel runs in its own folder.
    """
    import ipywidgets as widgets

    try:
        progress = course_progress(notebooks_dir)
    except FileNotFoundError as e:  # a copy of the lesson elsewhere: said, not a traceback
        return widgets.Label(str(e))
    rows = []
    for p in progress:
        counts = [(p.exercises_passed, len(p.exercises), _("exercises"))]
        counts.append((p.questions_passed, len(p.questions), _("questions")))
        said = [f"{done}/{total} {what}" for done, total, what in counts if total]
        # TRANSLATORS: a thing and, in brackets, more about it ("100% (2/2 questions)")
        label = _("{text} ({detail})").format(text=f"{p.fraction:.0%}", detail=_(", ").join(said))
        rows.append(
            widgets.HBox(
                [
                    widgets.Label(p.lesson, layout=widgets.Layout(width="11em")),
                    widgets.FloatProgress(
                        value=p.fraction,
                        min=0.0,
                        max=1.0,
                        bar_style="success" if p.done == p.total else "",
                        layout=widgets.Layout(width="16em"),
                    ),
                    widgets.Label(label),
                ]
            )
        )
    nxt = next_lesson(progress)
    text = summary(progress) if nxt is None else _("Open next: {lesson}.").format(lesson=nxt.lesson)
    return widgets.VBox([*rows, widgets.HTML(f"<b>{text}</b>")])

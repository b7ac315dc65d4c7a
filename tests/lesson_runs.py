"""Each lesson notebook executed once per test session, and every gate reads that one run.

A *run* is one (language, lesson): the lesson's solution notebook and the blank learner notebook
released from it, autograded by nbgrader in a throwaway course folder, each executed top to
bottom in a fresh ``python3`` kernel with the backend a learner's kernel has (inline plots). The
gates read it: the solution runs without an error or stderr and nbgrader gives it full marks and
the blank notebook zero (``tests/test_notebooks.py``); the learner's lab shows those notebooks
as it should (``tests/test_browser.py``).

Tests that read a run are parametrised with :func:`params`, which puts each run's tests in one
xdist group: under ``pytest -n 2 --dist loadgroup`` (``make test``) they go to the one worker
that executes it, so it is executed once per session, whichever gate asks first.

Languages: English from ``solutions/``; a translated edition from ``<language>/solutions/``
(``zh-CN/solutions/<L>/<L>.ipynb``) is more runs, one per lesson, as soon as its folder exists.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
# language -> its solution notebooks (the learner's versions are released from them)
EDITIONS = {"en": ROOT / "solutions", "zh-CN": ROOT / "zh-CN" / "solutions"}
# The kernel's own backend in Jupyter (ipykernel's default): the run shows plots as a lab does.
INLINE = "module://matplotlib_inline.backend_inline"


def _load_release():
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


release = _load_release()


def lessons(language: str = "en") -> list[str]:
    """The lessons of an edition: its folders ``<NN>_<topic>`` that hold a notebook."""
    folder = EDITIONS[language]
    return release.assignments(folder) if folder.is_dir() else []


# Every (language, lesson) there is a solution notebook for: the English ones, then the others.
RUNS = [(language, lesson) for language in EDITIONS for lesson in lessons(language)]


def run_id(language: str, lesson: str) -> str:
    return lesson if language == "en" else f"{language}/{lesson}"


def params(runs=None) -> list:
    """``("language", "lesson")`` parameters, each in its run's xdist group."""
    return [
        pytest.param(
            language,
            lesson,
            id=run_id(language, lesson),
            marks=pytest.mark.xdist_group(f"run-{language}-{lesson}"),
        )
        for language, lesson in (RUNS if runs is None else runs)
    ]


class LessonRun:
    """One nbgrader round trip of a lesson in one language: its release generated, then the
    solution notebook and the blank learner notebook autograded."""

    STUDENTS = ("solution", "blank")

    def __init__(self, language: str, lesson: str, root: Path):
        self.language, self.assignment, self.root = language, lesson, root
        self.notebook = f"{lesson}.ipynb"
        self.source = EDITIONS[language] / lesson / self.notebook
        release.make_course(root, [lesson], EDITIONS[language])
        release.nbgrader(
            ["generate_assignment", lesson, "--force", *release.course_args(root)], cwd=root
        )
        for student, original in (
            ("solution", self.source),
            ("blank", root / "release" / lesson / self.notebook),
        ):
            folder = root / "submitted" / student / lesson
            folder.mkdir(parents=True)
            shutil.copy(original, folder / self.notebook)
        env = release.nbgrader_env()
        env["MPLBACKEND"] = INLINE
        self.done = subprocess.run(
            [str(Path(sys.executable).parent / "nbgrader"), "autograde", lesson, "--force"]
            + release.course_args(root),
            cwd=root,
            capture_output=True,
            text=True,
            env=env,
        )

    def path(self, student: str) -> Path:
        """Where the notebook of ``student`` ("solution" or "blank") is, as autograde ran it."""
        return self.root / "autograded" / student / self.assignment / self.notebook

    def executed(self, student: str):
        return nbformat.read(self.path(student), as_version=4)


_runs: dict[tuple[str, str], LessonRun] = {}


def get(language: str, lesson: str, tmp_path_factory) -> LessonRun:
    """The run of (language, lesson), executed by the first test of this process that asks."""
    key = (language, lesson)
    if key not in _runs:
        _runs[key] = LessonRun(
            language, lesson, tmp_path_factory.mktemp(f"run-{language}-{lesson}")
        )
    return _runs[key]

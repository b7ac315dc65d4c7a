"""Each lesson notebook executed once per test session, and every gate reads that one run.

A *run* is one (language, lesson): the lesson's solution notebook and the blank learner notebook
released from it, autograded by nbgrader in a throwaway course folder, each executed top to
bottom in a fresh ``python3`` kernel with the backend a learner's kernel has (inline plots). The
gates read it: the release it generated is the committed learner notebook, the solution runs
without an error or stderr and nbgrader gives it full marks and the blank notebook zero
(``tests/test_notebooks.py``); the learner's lab shows those notebooks
as it should (``tests/test_browser.py``).

Tests that read a run are parametrised with :func:`params`, which puts each run's tests in one
xdist group: under ``pytest -n 3 --dist loadgroup`` (``make test``) they go to the one worker
that executes it, so it is executed once per session, whichever gate asks first.

Languages: English from ``solutions/``; a translated edition from ``<language>/solutions/``
(``zh-CN/solutions/<L>/<L>.ipynb``) is more runs, one per lesson, as soon as its folder exists.
A translated run executes the solution notebook only (:func:`students`): its blank notebook is
the English blank's program, which the English run executes (why: :func:`students`).
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
# language -> its solution notebooks (the learner's versions are released from them)
EDITIONS = {"en": ROOT / "solutions", "zh-CN": ROOT / "zh-CN" / "solutions"}
# language -> its committed learner notebooks (each run's release must be them)
RELEASED = {"en": ROOT / "notebooks", "zh-CN": ROOT / "zh-CN" / "notebooks"}
# The kernel's own backend in Jupyter (ipykernel's default): the run shows plots as a lab does.
INLINE = "module://matplotlib_inline.backend_inline"


def kernel_config() -> dict:
    """Configuration for the kernels this process starts: they talk over Unix sockets, not TCP.

    A free TCP port that jupyter_client picks is free only until the kernel binds it, and under
    `-n 3` another process (a kernel, the lab, a Dask cluster) took one first: a lesson run failed
    with "Address already in use", and nbgrader removed its notebook. The sockets' paths are
    absolute (jupyter_client's default is relative to the kernel's folder, which is not the
    client's) and this process's own: its kernels run one after another, and jupyter_client
    numbers each kernel's sockets past those of a kernel still alive. The folder is the session's
    (tests/conftest.py: short, for a socket's path is at most 107 bytes)."""
    folder = os.environ.get("JUPYTER_RUNTIME_DIR") or tempfile.gettempdir()
    os.makedirs(folder, exist_ok=True)
    ip = os.path.join(folder, f"kernel-{os.getpid()}")
    return {"KernelManager": {"transport": "ipc", "ip": ip}}


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


def students(language: str) -> tuple[str, ...]:
    """Whose notebooks a run of ``language`` executes: the solution, and in English the blank.

    A translated blank notebook is not executed, because the English run already proves what
    executing it would. ``tests/test_zh_edition.py`` makes a translated solution notebook the
    English one with the same cells, ids and metadata, its graded and answer cells byte for
    byte and its other code cells the same program (equal ASTs, where a string may differ only
    by being translated text a human reads: a printout, a plot label, a docstring); the committed
    blanks are the release of their sources (each run checks its own: tests/test_notebooks.py),
    and the translated blank compares to the English blank as the sources do
    (``test_the_chinese_blank_notebook_is_the_english_one_translated``). So
    the translated blank runs the English blank's program with other words in its printouts
    and labels: the same cells fail at the same stubs, the same checks say "not written yet"
    (the grader's words, in the run's locale, the same for both), the same plots are drawn or
    wait, and nbgrader's graded cells (the same bytes) give it the same zero. What the words
    themselves do when shown (a label that matplotlib cannot draw, a missing glyph on stderr)
    shows in the translated solution run, which executes every one of those cells with the
    same words and data that draw them."""
    return ("solution", "blank") if language == "en" else ("solution",)


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


def student_params(who=None) -> list:
    """``("language", "lesson", "student")`` parameters, for each student whose notebook a run
    executes (:func:`students`; ``who`` keeps only those), each in its run's xdist group."""
    return [
        pytest.param(
            language,
            lesson,
            student,
            id=f"{run_id(language, lesson)}-{student}",
            marks=pytest.mark.xdist_group(f"run-{language}-{lesson}"),
        )
        for language, lesson in RUNS
        for student in students(language)
        if who is None or student in who
    ]


@dataclass
class Autograded:
    """What ``nbgrader autograde`` did: ``returncode`` 0 where it succeeded, its log (``stdout``)
    and, where it failed, the traceback (``stderr``), as its command line would say them."""

    returncode: int
    stdout: str
    stderr: str


def autograde(root: Path, lesson: str) -> Autograded:
    """``nbgrader autograde LESSON --force`` of every student in the course ``root``, with the
    course's config, run in this process through nbgrader's own API (formgrader's way): nbgrader
    is imported once per test process, not once per run. The kernels get the environment the
    command line would give them (:func:`release.nbgrader_env`, with the lab's inline backend)."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.merge(
        Config(
            **kernel_config(),
            CourseDirectory={
                "root": str(root),
                "source_directory": "solutions",
                "release_directory": "release",
                "db_url": f"sqlite:///{root / 'gradebook.db'}",
            },
        )
    )
    kernels = {**release.nbgrader_env(), "MPLBACKEND": INLINE}
    saved = dict(os.environ)
    os.environ.update(kernels)
    try:
        with warnings.catch_warnings(record=True) as said:  # its own (SQLAlchemy's): its stderr
            warnings.simplefilter("always")
            result = NbGraderAPI(config=config).autograde(lesson, "*", force=True)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    stderr = "".join(f"{w.category.__name__}: {w.message}\n" for w in said)
    return Autograded(
        0 if result["success"] else 1, result.get("log", ""), stderr + result.get("error", "")
    )


class LessonRun:
    """One nbgrader round trip of a lesson in one language: its release generated, then the
    solution notebook and (in English) the blank learner notebook autograded."""

    def __init__(self, language: str, lesson: str, root: Path, released: Path):
        self.language, self.assignment, self.root = language, lesson, root
        self.students = students(language)
        self.notebook = f"{lesson}.ipynb"
        self.source = EDITIONS[language] / lesson / self.notebook
        # The edition's course as `generate_assignment` left it (:func:`released`): this run's
        # lesson, and the gradebook that knows its graded cells.
        shutil.copy(released / "nbgrader_config.py", root)
        shutil.copy(released / "gradebook.db", root)
        for folder in ("solutions", "release"):
            shutil.copytree(released / folder / lesson, root / folder / lesson)
        originals = {"solution": self.source, "blank": root / "release" / lesson / self.notebook}
        for student in self.students:
            original = originals[student]
            folder = root / "submitted" / student / lesson
            folder.mkdir(parents=True)
            shutil.copy(original, folder / self.notebook)
        self.done = autograde(root, lesson)

    def path(self, student: str) -> Path:
        """Where the notebook of ``student`` ("solution" or "blank") is, as autograde ran it."""
        return self.root / "autograded" / student / self.assignment / self.notebook

    def executed(self, student: str):
        return nbformat.read(self.path(student), as_version=4)


def session_folder(tmp_path_factory) -> Path:
    """The test session's own temporary folder, which every xdist worker shares (each worker's
    base folder lies in it): for what the session makes once, under a lock, for all of them."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def released(language: str, tmp_path_factory) -> Path:
    """A throwaway nbgrader course of every lesson of ``language``, its release generated by one
    ``nbgrader generate_assignment`` (a few seconds of start-up, not one per lesson), once per
    session: the first process of the session that asks generates it, under a lock, and the
    others (xdist workers) wait for it and read it. A process that would wait generates another
    edition nobody has started meanwhile (under ``-n 3`` the workers start with English runs:
    one generates the English release while another makes the Chinese one, instead of
    waiting). Where generating failed, every run says why."""
    shared = session_folder(tmp_path_factory)
    with open(shared / f"released-{language}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process is generating it
            for other in EDITIONS:
                if other != language and lessons(other):
                    _generate(other, shared, wait=False)
            fcntl.flock(lock, fcntl.LOCK_EX)
        _generate(language, shared)
    failed = shared / f"released-{language}.failed"
    if failed.exists():
        raise release.ReleaseError(failed.read_text())
    return shared / f"released-{language}"


def _generate(language: str, shared: Path, wait: bool = True) -> None:
    """Generate the release of ``language`` into ``shared/released-<language>`` unless it is
    there (or failed: the reason in ``released-<language>.failed``). The caller holds the
    edition's lock, or (``wait=False``) it is taken here if free, and nothing done if not."""
    folder, failed = shared / f"released-{language}", shared / f"released-{language}.failed"
    if not wait:
        with open(shared / f"released-{language}.lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return
            _generate(language, shared)
        return
    if folder.is_dir() or failed.exists():
        return
    making = shared / f"released-{language}.making"
    shutil.rmtree(making, ignore_errors=True)
    making.mkdir()
    try:  # as scripts/release.py releases notebooks/, its check included ("released nothing")
        release.generate(making, lessons(language), EDITIONS[language])
    except release.ReleaseError as e:
        failed.write_text(str(e))
    else:
        making.rename(folder)


_runs: dict[tuple[str, str], LessonRun] = {}


def get(language: str, lesson: str, tmp_path_factory) -> LessonRun:
    """The run of (language, lesson), executed by the first test of this process that asks."""
    key = (language, lesson)
    if key not in _runs:
        _runs[key] = LessonRun(
            language,
            lesson,
            tmp_path_factory.mktemp(f"run-{language}-{lesson}"),
            released(language, tmp_path_factory),
        )
    return _runs[key]

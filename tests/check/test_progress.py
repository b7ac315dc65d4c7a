"""`python -m autograder progress`: the learner's view of the course, graded as `check` grades."""

import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import progress as progress_module
from autograder.check.cli import EXIT_FAILED, EXIT_PASSED, EXIT_UNGRADABLE
from autograder.cli import main
from autograder.contract import CONTRACT
from autograder.core import lesson_folders
from autograder.core.assignment import assignment
from autograder.core.items import lesson_items
from autograder.progress import (
    LessonProgress,
    bar,
    course_progress,
    next_lesson,
    table,
)
from autograder.questions import QUESTIONS

ROOT = Path(__file__).resolve().parents[2]


def _course(tmp_path: Path, source: str) -> Path:
    """A copy of ``source`` (solutions/ or notebooks/) laid out like a learner's notebooks/."""
    root = tmp_path / "notebooks"
    for folder in sorted((ROOT / source).iterdir()):
        notebook = folder / f"{folder.name}.ipynb"
        if notebook.is_file():
            (root / folder.name).mkdir(parents=True)
            shutil.copy(notebook, root / folder.name)
    return root


def _released_lessons(source: str) -> list[str]:
    return [
        name
        for name in lesson_folders.lessons()
        if (ROOT / source / name / f"{name}.ipynb").is_file()
    ]


def test_lesson_items_are_the_contract_rows_then_the_questions_with_their_points():
    """One place computes a lesson's items (progress, the judge and the gradebook read it)."""
    rows = [e for e in CONTRACT if e.lesson == "04_softmax_masks"]
    items = lesson_items("04_softmax_masks")
    answers = [n for n in items if n.startswith("answer_")]
    assert list(items) == [e.name for e in rows] + answers
    assert [items[e.name] for e in rows] == [float(e.points) for e in rows]
    assert answers and all(a.startswith("answer_04_") for a in answers)
    assert all(items[a] == QUESTIONS[a.removeprefix("answer_")].points for a in answers)
    assert lesson_items("04") == items == assignment("04").points
    assert all(n.startswith("answer_") for n in lesson_items("00_setup"))


def test_bar_and_table_show_counts_and_the_next_lesson(tmp_path):
    done = LessonProgress(
        "00_setup", tmp_path / "a.ipynb", (), ("00_1",), frozenset({"answer_00_1"})
    )
    half = LessonProgress(
        "01_projections",
        tmp_path / "b.ipynb",
        ("project_qkv", "QKVProjection"),
        ("01_1", "01_2"),
        frozenset({"project_qkv", "answer_01_2", "softmax"}),  # softmax is not this lesson's
    )
    assert bar(0.0, 4) == "[----]" and bar(1.0, 4) == "[####]" and bar(0.5, 4) == "[##--]"
    assert (half.exercises_passed, half.questions_passed, half.fraction) == (1, 1, 0.5)
    assert next_lesson([done, half]) is half and next_lesson([done]) is None
    text = table([done, half])
    assert "1/2" in text and "50%" in text and "100%" in text
    assert "Course: 3/5 passed (60%)" in text
    assert f"Open next: {tmp_path / 'b.ipynb'}" in text


def test_an_empty_folder_is_a_clear_error(tmp_path, capsys):
    assert main(["progress", str(tmp_path)]) == EXIT_UNGRADABLE
    assert "no lesson notebook" in capsys.readouterr().err
    assert main(["progress", str(tmp_path / "missing")]) == EXIT_UNGRADABLE


def _graded_by_the_command_line(monkeypatch) -> list:
    """What ``progress`` on the command line graded: its ``course_progress`` calls' results (the
    course is graded once, and the command line's table and the results are of that one run)."""
    graded = []

    def recorded(*args, **kwargs):
        graded.append(course_progress(*args, **kwargs))
        return graded[-1]

    monkeypatch.setattr(progress_module, "course_progress", recorded)
    return graded


@pytest.mark.slow
def test_a_blank_course_is_at_zero_percent(tmp_path, capsys, monkeypatch):
    root = _course(tmp_path, "notebooks")
    before = {p: p.read_bytes() for p in root.rglob("*.ipynb")}
    graded = _graded_by_the_command_line(monkeypatch)
    assert main(["progress", str(root)]) == EXIT_FAILED
    [progress] = graded
    assert [p.lesson for p in progress] == _released_lessons("notebooks")
    assert all(p.done == 0 and p.total > 0 for p in progress)
    assert next_lesson(progress).lesson == "00_setup"
    out = capsys.readouterr().out
    assert "(0%)" in out and "Open next:" in out
    assert table(progress) in out
    assert {p: p.read_bytes() for p in root.rglob("*.ipynb")} == before, "read-only"


@pytest.mark.slow
def test_the_solutions_are_at_one_hundred_percent(tmp_path, capsys):
    root = _course(tmp_path, "solutions")
    assert main(["progress", str(root)]) == EXIT_PASSED
    out = capsys.readouterr().out
    assert "(100%)" in out and "well done" in out


@pytest.mark.slow
def test_a_lesson_half_done_counts_what_passes(tmp_path):
    root = tmp_path / "notebooks"
    (root / "00_setup").mkdir(parents=True)
    solution = nbformat.read(ROOT / "solutions/00_setup/00_setup.ipynb", as_version=4)
    answers = [c for c in solution.cells if c.cell_type == "code" and "answer_00_1 =" in c.source]
    blank = nbformat.read(ROOT / "notebooks/00_setup/00_setup.ipynb", as_version=4)
    blank.cells.append(nbformat.v4.new_code_cell(answers[0].source))
    nbformat.write(blank, root / "00_setup/00_setup.ipynb")
    [lesson] = course_progress(root)
    assert (lesson.questions_passed, lesson.total) == (1, 2)


@pytest.mark.slow
def test_the_widget_shows_the_same_progress(tmp_path):
    import ipywidgets

    from autograder.progress import widget

    root = tmp_path / "notebooks"
    (root / "00_setup").mkdir(parents=True)
    shutil.copy(ROOT / "solutions/00_setup/00_setup.ipynb", root / "00_setup")
    view = widget(root)
    [row, summary] = view.children
    label, bar_, counts = row.children
    assert label.value == "00_setup" and isinstance(bar_, ipywidgets.FloatProgress)
    assert bar_.value == 1.0 and counts.value == "100% (2/2 questions)"
    assert "well done" in summary.value


def test_progress_no_daemon_never_asks_the_warm_grader(tmp_path, monkeypatch, capsys):
    from autograder.service import client

    def ask(*_a, **_kw):
        raise AssertionError("--no-daemon asked the warm grader")

    monkeypatch.setattr(client, "_ask", ask)
    monkeypatch.setattr(client, "_turned_off", False)
    monkeypatch.setattr(client, "INSIDE", False)
    monkeypatch.delenv(client.ENV, raising=False)
    root = tmp_path / "notebooks" / "04_softmax_masks"
    root.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nbformat.write(nb, root / "04_softmax_masks.ipynb")
    assert main(["progress", str(tmp_path / "notebooks"), "--no-daemon"]) == EXIT_FAILED
    assert client._turned_off


def test_the_chinese_view_uses_chinese_brackets_and_commas(tmp_path, monkeypatch):
    """Under a Chinese locale, a notebook that could not be read and the widget's counts are in
    Chinese brackets, the counts joined by a Chinese comma (they were '  (...)' and '(1/2 练习,
    0/3 问题)')."""
    import ipywidgets  # noqa: F401 (the widget's)

    from autograder import i18n
    from autograder.progress import widget

    for name in (*i18n.LOCALE_VARIABLES, i18n.ENV, "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    half = LessonProgress(
        "01_projections",
        tmp_path / "b.ipynb",
        ("project_qkv", "QKVProjection"),
        ("01_1", "01_2", "01_3"),
        frozenset({"project_qkv"}),
        problem="c.ipynb: 不是笔记本",
    )
    text = table([half])
    assert text.splitlines()[1].endswith("   20%  （c.ipynb: 不是笔记本）"), text
    monkeypatch.setattr(progress_module, "course_progress", lambda root: [half])
    [row, _summary] = widget(tmp_path).children
    assert row.children[2].value == "20%（1/2 练习，0/3 问题）"


def test_the_widget_says_in_words_where_it_found_no_lesson_notebook(tmp_path):
    """Trial 46: lesson 00's progress cell, run in a folder of copies under other names, showed
    a FileNotFoundError traceback; the command line's `progress` says the same in words."""
    from autograder.progress import widget

    (tmp_path / "notebooks" / "00_setup").mkdir(parents=True)
    view = widget(tmp_path / "notebooks")
    assert view.value.startswith("no lesson notebook in "), view.value
    assert "00_setup/00_setup.ipynb" in view.value


def test_the_warm_grader_grades_the_lessons_at_once_in_the_learners_language(tmp_path, monkeypatch):
    """One request per lesson, as many in flight together as there are cores, each in the
    language chosen where progress was asked for (a context variable, which threads do not
    inherit); a lesson the warm grader cannot take is graded here."""
    import os
    import threading

    from autograder import i18n

    root = _course(tmp_path, "notebooks")
    second = threading.Event()
    asked, here = [], []

    def judge(message, on_queued=None):
        asked.append((Path(message["file"]).parent.name, i18n.language()))
        if len(asked) > 1:
            second.set()
        elif (os.cpu_count() or 1) > 1:  # the first waits for a second to be asked meanwhile
            assert second.wait(timeout=30), "one request at a time"
        return None if "00_setup" in message["file"] else {"nothing": "a blank notebook"}

    def judged_here(notebook):
        here.append(Path(notebook).parent.name)
        return []

    monkeypatch.setattr(progress_module.service, "judge", judge)
    monkeypatch.setattr(progress_module, "_here", judged_here)
    with i18n.use("zh-CN"):
        progress = course_progress(root)
    lessons = [p.lesson for p in progress]
    assert lessons == lesson_folders.lessons() and sorted(l for l, _ in asked) == lessons
    assert {language for _, language in asked} == {"zh-CN"}
    assert here == ["00_setup"] and not any(p.passed for p in progress)


def test_where_the_warm_grader_cannot_start_progress_says_so_once(tmp_path, monkeypatch, capsys):
    """The lessons' requests fail together (each in its own thread): one note, then every lesson
    graded here."""
    import time

    from autograder.service import client

    root = _course(tmp_path, "notebooks")

    def unavailable(message, fds=(), on_queued=None):
        time.sleep(0.2)  # the other threads' requests meanwhile
        raise client.Unavailable("it did not start")

    monkeypatch.setattr(client, "_failed", None)
    monkeypatch.setattr(client, "_ask", unavailable)
    monkeypatch.setattr(progress_module, "_here", lambda notebook: [])
    progress = course_progress(root)
    assert [p.lesson for p in progress] == lesson_folders.lessons()
    said = capsys.readouterr().err
    assert said.count("the warm grader is not used (it did not start)") == 1, said

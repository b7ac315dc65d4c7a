"""The grader speaks Chinese when asked (autograder/i18n.py, autograder/locale/).

Every marked message (and every Mistake's title and hint) has a Chinese translation that keeps
its placeholders; the committed template is what the sources give; the language is chosen by
``--lang``, ``AUTOGRADER_LANG``, a notebook under ``zh-CN/``, then the locale; ``check`` names the
mistake in Chinese, directly and through the warm grader, and ``--json`` stays English.
"""

from __future__ import annotations

import ast
import gettext
import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from autograder import i18n
from autograder.core.mistakes import MISTAKES, looks_like

babel = pytest.importorskip("babel", reason="Babel is in requirements.txt: run make install")
from babel.messages.extract import extract_from_dir  # noqa: E402
from babel.messages.frontend import parse_mapping_cfg  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "autograder" / "locale"
POT = LOCALES / "autograder.pot"
PO = LOCALES / "zh_CN" / "LC_MESSAGES" / "autograder.po"
MO = PO.with_suffix(".mo")
WRONG = ROOT / "tests" / "lessons" / "04_softmax_masks" / "wrong"
HOW_TO_ADD = (
    "To add the Chinese: run `make i18n` (it extracts every marked message and every Mistake's "
    "title and hint into autograder/locale/autograder.pot and merges them into "
    "autograder/locale/zh_CN/LC_MESSAGES/autograder.po), write the Chinese in each empty "
    'msgstr "" (and delete the `#, fuzzy` line of each entry you have checked), keeping every '
    "{placeholder} and using the terms of docs/glossary.zh-CN.md, then `make install` to "
    "compile it."
)
ZH_ENV = {"LANG": "zh_CN.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}


def _key(message) -> str | tuple:
    return message.id


def _catalog(path: Path):
    with open(path, "rb") as f:
        return read_po(f)


def _extracted() -> set:
    """The messages the sources mark now, as ``pybabel extract -F babel.cfg`` finds them."""
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT / "autograder"), method_map, options_map
    ):
        found.add(message if isinstance(message, str) else tuple(message))
    return found


def _ids(catalog) -> set:
    return {_key(m) for m in catalog if m.id}


def _strings(message) -> list[str]:
    return [message.string] if isinstance(message.string, str) else list(message.string)


def _fields(text: str) -> list[str]:
    """The format fields of ``text`` (``{name}``), sorted; ValueError if it is no format."""
    return sorted(f for _, f, _, _ in string.Formatter().parse(text) if f is not None)


# The catalog -----------------------------------------------------------------------------------


def test_the_template_is_what_the_sources_mark():
    stale = _ids(_catalog(POT)) ^ _extracted()
    assert not stale, (
        f"autograder/locale/autograder.pot is out of date ({len(stale)} messages differ, e.g. "
        f"{sorted(map(str, stale))[:3]}). {HOW_TO_ADD}"
    )


def test_every_message_has_a_chinese_translation():
    po = _catalog(PO)
    by_id = {_key(m): m for m in po if m.id}
    wanted = (
        _extracted() | {m.title for m in MISTAKES.values()} | {m.hint for m in MISTAKES.values()}
    )
    from autograder.drill.extra.mistakes import MISTAKES as DRILL_MISTAKES

    wanted |= {t for m in DRILL_MISTAKES.values() for t in (m.title, m.hint)}
    untranslated = sorted(
        str(w) for w in wanted if w not in by_id or by_id[w].fuzzy or not all(_strings(by_id[w]))
    )
    assert not untranslated, (
        f"{len(untranslated)} messages have no Chinese translation (or a fuzzy one), e.g. "
        f"{untranslated[:3]}. {HOW_TO_ADD}"
    )


def test_translations_keep_every_placeholder():
    wrong = []
    for m in _catalog(PO):
        if not m.id:
            continue
        sources = [m.id] if isinstance(m.id, str) else list(m.id)
        for i, text in enumerate(_strings(m)):
            source = sources[min(i, len(sources) - 1)]
            try:
                same = _fields(source) == _fields(text)
            except ValueError:  # not a format string (code in a hint): kept literally
                same = text.count("{") == source.count("{")
            if text and not same:
                wrong.append((source, text))
    assert not wrong, f"placeholders differ between msgid and msgstr: {wrong[:3]}"


def test_the_compiled_catalog_is_the_po():
    assert MO.is_file(), f"{MO.relative_to(ROOT)} is missing: run make install to compile it"
    with open(MO, "rb") as f:
        compiled = gettext.GNUTranslations(f)
    for m in _catalog(PO):
        if m.id and isinstance(m.id, str) and not m.fuzzy:
            assert compiled.gettext(m.id) == m.string, (
                f"{MO.relative_to(ROOT)} is older than the .po: run make install"
            )


def test_every_mistake_is_shown_in_chinese():
    with i18n.use("zh-CN"):
        for mistake_id, entry in MISTAKES.items():
            line = looks_like(mistake_id)
            assert f"[{mistake_id}]" in line
            assert entry.title not in line and entry.hint not in line, (
                f"mistake [{mistake_id}] has no Chinese title or hint. {HOW_TO_ADD}"
            )
    with i18n.use("en"):
        entry = MISTAKES["causal-mask-inverted"]
        assert looks_like("causal-mask-inverted") == (
            f"Looks like: {entry.title} [causal-mask-inverted]. {entry.hint}"
        )


def _modules_using_gettext():
    for path in sorted((ROOT / "autograder").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "from autograder.i18n import" in source:
            yield path, ast.parse(source)


def test_messages_are_marked_where_babel_finds_them():
    """A ``_()`` inside an f-string is not extracted (Python 3.11 tokenizes it as one string),
    and a module that also assigns ``_`` (``x, _ = ...``) turns ``_()`` into an error."""
    hidden, shadowed = [], []
    for path, tree in _modules_using_gettext():
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                for call in ast.walk(node):
                    if isinstance(call, ast.Call) and getattr(call.func, "id", "") in (
                        "_",
                        "N_",
                        "ngettext",
                    ):
                        hidden.append(f"{path.relative_to(ROOT)}:{call.lineno}")
            if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
                shadowed.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not hidden, f"_() inside an f-string (compute it before): {hidden}"
    assert not shadowed, f"`_` assigned where _() translates (name it otherwise): {shadowed}"


# The language ----------------------------------------------------------------------------------


@pytest.fixture
def no_language(monkeypatch, tmp_path):
    for name in (*i18n.LOCALE_VARIABLES, i18n.ENV, "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


@pytest.mark.parametrize(
    "env, expected",
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LANG": "zh_TW.UTF-8"}, "zh-CN"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LANG": "zh_CN.UTF-8", "LC_ALL": "en_GB.UTF-8"}, "en"),
        ({"LANG": "zh_CN.UTF-8", "LANGUAGE": "en:zh"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "AUTOGRADER_LANG": "zh-CN"}, "zh-CN"),
        ({"LANG": "zh_CN.UTF-8", "AUTOGRADER_LANG": "en"}, "en"),
        ({"JPY_SESSION_NAME": "/home/ada/course/zh-CN/notebooks/04_x/04_x.ipynb"}, "zh-CN"),
        ({"JPY_SESSION_NAME": "/home/ada/course/notebooks/04_x/04_x.ipynb"}, "en"),
    ],
)
def test_the_language_is_the_setting_then_the_notebook_then_the_locale(no_language, env, expected):
    for name, value in env.items():
        no_language.setenv(name, value)
    assert i18n.language() == expected


def test_a_working_folder_under_zh_cn_is_chinese_and_an_explicit_choice_wins(no_language):
    folder = Path.cwd() / "zh-CN" / "solutions" / "04_softmax_masks"
    folder.mkdir(parents=True)
    no_language.chdir(folder)
    assert i18n.language() == "zh-CN"
    with i18n.use("en"):
        assert i18n.language() == "en" and i18n._("PASS") == "PASS"
    assert i18n._("PASS") != "PASS"


def test_lang_is_taken_out_of_any_place_on_the_command_line():
    assert i18n.split_lang(["check", "f.py", "--lang", "zh-CN"]) == ("zh-CN", ["check", "f.py"])
    assert i18n.split_lang(["--lang=en", "progress"]) == ("en", ["progress"])
    assert i18n.split_lang(["check", "f.py"]) == (None, ["check", "f.py"])
    with pytest.raises(ValueError, match="zh-CN or en"):
        i18n.split_lang(["check", "--lang"])
    with pytest.raises(ValueError, match="zh-CN or en"):
        i18n.choose("klingon")


@given(st.text(alphabet=st.sampled_from(list("注意力权重掩码，。ab_(1) ")), max_size=300))
@example("111111111111。。。。。。。。。。。。。 力")  # the space before 力 was not counted
def test_chinese_text_is_wrapped_by_columns_without_losing_a_character(text):
    wrapped = i18n.fill(text, 40)
    assert "".join(wrapped.split()) == "".join(text.split())
    for line in wrapped.splitlines():
        core = line.rstrip("，。")  # closing punctuation never starts a line
        too_long_to_break = " " not in core and i18n.cells(core) == len(core)  # one ASCII run
        assert i18n.cells(core) <= 40 or too_long_to_break, wrapped


# The grader's output ---------------------------------------------------------------------------


def _check(args, env, *extra):
    return subprocess.run(
        [sys.executable, *extra, "-m", "autograder", "check", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _zh(text: str) -> str:
    with open(MO, "rb") as f:
        return gettext.GNUTranslations(f).gettext(text)


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in (*i18n.LOCALE_VARIABLES, i18n.ENV)}
    return {**env, "LANG": "C.UTF-8", **extra}


@pytest.fixture(scope="module")
def wrong_file():
    path = (WRONG / "causal-mask-inverted.py").relative_to(ROOT)
    return str(path), MISTAKES["causal-mask-inverted"]


def test_check_names_the_mistake_in_chinese_under_a_chinese_locale(wrong_file):
    path, entry = wrong_file
    zh = _check([path, "--no-daemon"], _env(LANG="zh_CN.UTF-8"))
    en = _check([path, "--no-daemon"], _env())
    assert zh.returncode == en.returncode == 1
    assert _zh(entry.title) in zh.stdout and "[causal-mask-inverted]" in zh.stdout
    assert f"  {_zh('FAIL')}  causal_mask  0/1" in zh.stdout.splitlines()
    assert entry.title not in zh.stdout
    assert "  FAIL  causal_mask  0/1" in en.stdout.splitlines()
    assert "Looks like: " + entry.title in " ".join(en.stdout.split())
    assert "Score: 0/1 (0 of 1 passed)" in en.stdout
    assert not any("\u4e00" <= c <= "\u9fff" for c in en.stdout)


def test_json_keeps_its_keys_and_ids_and_says_its_messages_in_the_terminals_language(wrong_file):
    """Answered by the session's warm grader (its replies are the direct ones:
    tests/check/test_service.py); the test above runs the grader here, in both languages. What a
    tool reads (keys, exercise and mistake ids, points) is the same in every language; what a
    person reads (each ``message``) is in the terminal's, as without --json (a trial)."""
    path, _entry = wrong_file
    zh = json.loads(_check([path, "--json", "--lang", "zh-CN"], _env()).stdout)
    en = json.loads(_check([path, "--json"], _env()).stdout)

    def ids(report):
        return [{k: v for k, v in r.items() if k != "message"} for r in report["results"]]

    assert ids(zh) == ids(en) and zh["results"][0]["mistake"] == "causal-mask-inverted"
    assert {k: v for k, v in zh.items() if k != "results"} == {
        k: v for k, v in en.items() if k != "results"
    }
    failed = [r["message"] for r in zh["results"] if not r["passed"]]
    assert failed and all(_has_chinese(m) for m in failed), failed
    assert not any(_has_chinese(r["message"]) for r in en["results"])


def test_an_unknown_language_is_refused_with_the_choices():
    done = _check(["tests/submissions/correct/idioms.py", "--lang", "tlh"], _env())
    assert done.returncode == 2 and "zh-CN or en" in done.stderr


@pytest.fixture(scope="module")
def warm_grader(tmp_path_factory):
    """A warm grader of this module's own, started with an English environment."""
    folder = Path(os.path.realpath(tmp_path_factory.mktemp("rt")))
    folder.chmod(0o700)
    env = _env(AUTOGRADER_RUNTIME_DIR=str(folder), AUTOGRADER_DAEMON="1")
    subprocess.run([sys.executable, "-m", "autograder.service", "start"], env=env, check=True)
    yield env
    subprocess.run([sys.executable, "-m", "autograder.service", "stop"], env=env)


def test_a_warm_check_speaks_the_callers_language(warm_grader, wrong_file):
    path, entry = wrong_file
    for env, args, chinese in [
        ({**warm_grader, "LANG": "zh_CN.UTF-8"}, [path], True),
        (warm_grader, [path], False),
        (warm_grader, ["--lang", "zh-CN", path], True),
        ({**warm_grader, "AUTOGRADER_LANG": "zh-CN"}, [path], True),
    ]:
        done = _check(args, env, "-X", "importtime")
        imported = [line.split("|")[-1].strip() for line in done.stderr.splitlines()]
        assert "autograder.service.client" in imported  # answered by the warm grader:
        assert not [m for m in imported if m.split(".")[0] == "torch"]  # no torch here
        assert (_zh(entry.title) in done.stdout) is chinese, (args, done.stdout)
        assert (entry.title in done.stdout.replace("\n      ", " ")) is not chinese


def test_a_kernels_check_sends_its_language_to_the_warm_grader(monkeypatch, no_language):
    from autograder.service import client

    sent = []
    monkeypatch.setattr(client, "_ask", lambda message, **kw: sent.append(message) or {})
    monkeypatch.setattr(client, "enabled", lambda argv=(): True)
    no_language.setenv("JPY_SESSION_NAME", "/c/zh-CN/notebooks/04_softmax_masks/04.ipynb")
    client.judge({"label": "this notebook", "sources": []})
    no_language.setenv("JPY_SESSION_NAME", "/c/notebooks/04_softmax_masks/04.ipynb")
    client.judge({"label": "this notebook", "sources": []})
    assert [m["lang"] for m in sent] == ["zh-CN", "en"]


def test_check_in_a_chinese_notebooks_folder_speaks_chinese(tmp_path):
    """``check()`` in a script run from ``zh-CN/notebooks/<L>/`` (a kernel's working folder)."""
    folder = tmp_path / "zh-CN" / "notebooks" / "04_softmax_masks"
    folder.mkdir(parents=True)
    script = folder / "learner.py"
    script.write_text(
        (WRONG / "causal-mask-inverted.py").read_text()
        + "\nfrom autograder.notebook import check\ncheck(causal_mask)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=folder,
        env=_env(AUTOGRADER_DAEMON="0", PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    title = _zh(MISTAKES["causal-mask-inverted"].title)
    assert title in done.stdout and "[causal-mask-inverted]" in done.stdout, done.stdout
    assert _zh("Looks like: {title} [{id}]. {hint}").split("{")[0] in done.stdout


def test_check_of_a_file_of_the_chinese_edition_speaks_chinese_unless_a_language_was_chosen(
    tmp_path, monkeypatch, capsys
):
    """``check zh-CN/notebooks/...`` from the course's root (a Chinese trial's was English: only
    the working folder counted), as a kernel in that folder speaks; --lang and AUTOGRADER_LANG
    still decide."""
    from autograder.cli import main

    folder = tmp_path / "zh-CN" / "notebooks" / "04_softmax_masks"
    folder.mkdir(parents=True)
    learner = folder / "learner.py"
    learner.write_text((WRONG / "causal-mask-inverted.py").read_text())
    for name in (*i18n.LOCALE_VARIABLES, i18n.ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AUTOGRADER_DAEMON", "0")
    monkeypatch.chdir(tmp_path)
    looks = "Looks like: {title} [{id}]. {hint}"  # the mistake's line, its words before {title}
    chinese, english = _zh(looks).split("{")[0], looks.split("{")[0]
    for argv, env, want in (
        ([], None, chinese),
        (["--lang", "en"], None, english),
        ([], "en", english),
    ):
        if env:
            monkeypatch.setenv(i18n.ENV, env)
        assert main([*argv, "check", str(learner), "--only", "causal_mask"]) == 1
        out = capsys.readouterr().out
        assert want in out and "[causal-mask-inverted]" in out, (argv, env, out)
    monkeypatch.delenv(i18n.ENV)
    assert i18n.edition_of(str(tmp_path)) is None and i18n.edition_of(str(learner)) == "zh-CN"


def test_feedback_and_the_class_report_speak_chinese():
    from autograder.core.result import Result
    from autograder.grade.outputs.class_report import report_html
    from autograder.grade.outputs.feedback import feedback_html
    from autograder.grade.results import Graded

    wrong = Result(
        "causal_mask", False, 0, 1, "query 0 may attend to keys 0", "causal-mask-inverted"
    )
    right = Result("answer_04_1", True, 1, 1, "", None)
    graded = Graded(
        "ada", "04_softmax_masks", "graded", 2.0, "04_softmax_masks.ipynb", [wrong, right]
    )
    with i18n.use("zh-CN"):
        page, report = feedback_html(graded), report_html([graded])
    title = _zh(MISTAKES["causal-mask-inverted"].title)
    for html in (page, report):
        assert '<html lang="zh-CN">' in html and title in html
    assert _zh("Feedback: {assignment}").format(assignment="04_softmax_masks") in page
    assert _zh("Question {number}").format(number="04.1") in page
    assert _zh("Class report") in report and "Class report" not in report
    assert "Score:" not in page and "Looks like" not in page


def test_what_grade_says_of_cells_not_read_and_names_not_found_is_chinese():
    """A syntax error that hides an exercise: its result, the notes and the count of the cells
    skipped, in the feedback's language (they were English in the Chinese edition)."""
    from autograder.core.assignment import SAID, assignment, judge_assignment
    from autograder.core.extract import from_sources

    broken = [(f"cell {i}", "def causal_mask(:\n" if i else "x = (\n") for i in range(SAID + 2)]
    with i18n.use("zh-CN"):
        results, notes = judge_assignment(
            from_sources("04_softmax_masks.ipynb", broken), assignment("04")
        )
    cell = _zh("cell {number}").format(number=0)
    syntax = _zh("{label} has a syntax error on line {line}: {error}").format(
        label=f'{cell} ("x = (")', line=1, error="'(' was never closed"
    )
    assert notes[0] == _zh("{problem}; skipped it").format(problem=syntax), notes
    got = {r.exercise: r.message for r in results}
    here = _zh("{name} is in a cell the grader could not read: {problem}; fix it and try again.")
    assert got["causal_mask"].startswith(here.split("{problem}")[0].format(name="causal_mask"))
    assert got["padding_mask"].startswith(
        _zh("{name} not found in your code.").format(name="padding_mask")
    )
    assert _zh("Not read: {problems}; fix it and try again.").split("{")[0] in got["softmax"]
    for message in got.values():
        english = message.replace("was never closed", "").replace("invalid syntax", "")
        assert not re.search("[A-Za-z]{4,} [a-z]{3,}", english), message
    assert "2" in notes[SAID] and "skipped" not in notes[SAID]


@pytest.mark.slow
def test_check_in_a_kernel_of_a_chinese_notebook_speaks_chinese(
    tmp_path, venv_on_path, monkeypatch
):
    """A kernel in ``zh-CN/notebooks/<L>/`` (as JupyterLab starts one) asks the warm grader and
    shows its verdict in Chinese, whatever the locale."""
    import lesson_runs
    import nbformat
    from nbclient import NotebookClient
    from traitlets.config import Config

    folder = tmp_path / "zh-CN" / "notebooks" / "04_softmax_masks"
    folder.mkdir(parents=True)
    monkeypatch.setenv("LANG", "C.UTF-8")
    for name in (*i18n.LOCALE_VARIABLES[:-1], i18n.ENV):
        monkeypatch.delenv(name, raising=False)
    nb = nbformat.v4.new_notebook()
    wrong = (WRONG / "causal-mask-inverted.py").read_text()
    nb.cells = [
        nbformat.v4.new_code_cell(f"{wrong}\nfrom autograder.notebook import check"),
        nbformat.v4.new_code_cell("check(causal_mask)"),
    ]
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
        config=Config(lesson_runs.kernel_config()),
    ).execute()
    text = "".join(o.get("text", "") for o in nb.cells[1].outputs)
    assert text.splitlines()[-2].startswith("✘ causal_mask"), text
    assert _zh(MISTAKES["causal-mask-inverted"].title) in text, text


# The conceptual questions' verdicts ------------------------------------------------------------


def _wrong_answers():
    from autograder.questions import QUESTIONS

    for qid, question in QUESTIONS.items():
        for wrong, meaning in question.known_wrong.items():
            yield qid, question, wrong, meaning


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def test_a_wrong_answers_verdict_is_chinese_under_a_chinese_locale_and_unchanged_in_english():
    from autograder.questions import grade_answer

    cases = list(_wrong_answers())
    assert cases
    for qid, question, wrong, meaning in cases:
        with i18n.use("zh-CN"):
            zh = grade_answer(qid, wrong)
        with i18n.use("en"):
            en = grade_answer(qid, wrong)
        label = "Question " + qid.replace("_", ".")
        english = f"{label}: not quite: {meaning}. Hint: {question.hint}"
        assert not en.correct and en.message == english
        assert not zh.correct and zh.message.startswith("问题 " + qid.replace("_", "."))
        assert "提示：" in zh.message and _has_chinese(zh.message)
        assert meaning not in zh.message and question.hint not in zh.message, (qid, zh.message)


def test_a_right_answers_why_and_an_unreadable_answer_are_chinese_under_a_chinese_locale():
    from autograder.questions import QUESTIONS, grade_answer

    with i18n.use("zh-CN"):
        for qid, question in QUESTIONS.items():
            verdict = grade_answer(qid, question.answer)
            assert verdict.correct and "正确" in verdict.message
            assert not question.why or question.why not in verdict.message, qid
        unreadable = grade_answer("02_1", "3 by 5")
        missing = grade_answer("02_1", ...)
    assert not unreadable.readable and "一个形状" in unreadable.message
    assert not missing.readable and "answer_02_1 = ..." in missing.message
    assert _has_chinese(missing.message)


def test_ids_and_letters_listed_in_a_chinese_message_are_joined_with_the_enumeration_comma():
    """The message "There is no question ..." lists the lesson's questions, and an unreadable choice
    lists its letters: in Chinese joined with "、", as every name list the checks print."""
    from autograder.questions import QUESTIONS, grade_answer

    choice = next(q for q in QUESTIONS.values() if q.kind == "choice")
    fives = [q for q in QUESTIONS if q.startswith("05_")]
    for language, comma in (("zh-CN", "、"), ("en", ", ")):
        with i18n.use(language):
            unknown = grade_answer("05_99", 1).message
            letters = grade_answer(choice.id, "z").message
        assert comma.join(fives) in unknown, unknown
        assert comma.join(f'"{c}"' for c in choice.choices) in letters, letters


def _headings(notebook: Path) -> set[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return {
        line.lstrip("#").strip()
        for cell in cells
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("#")
    }


def test_a_hint_that_names_a_section_names_the_chinese_notebooks_heading():
    """A hint or why that sends the learner to a section ('How many heads?') names, in Chinese,
    the heading the Chinese notebook has (“用多少个头？”), not the English one."""
    from autograder.core import lesson_folders
    from autograder.questions import QUESTIONS

    lessons = {lesson.split("_")[0]: lesson for lesson in lesson_folders.lessons()}
    named = 0
    for qid, question in QUESTIONS.items():
        notebook = ROOT / "zh-CN" / "solutions" / (lesson := lessons[qid.split("_")[0]])
        for text in (question.hint, question.why):
            english = [t for t in text.split("'")[1::2] if "section '" + t in text]
            if not english:
                continue
            named += 1
            with i18n.use("zh-CN"):
                chinese = i18n._(text)
            quoted = [t.split("”")[0] for t in chinese.split("“")[1:]]
            headings = _headings(notebook / f"{lesson}.ipynb")
            assert quoted and all(q in headings for q in quoted), (qid, chinese, sorted(headings))
    assert named, "no hint names a section any more: this test has nothing to check"


# The checks' own lines: what was called, what came back and what was expected ------------------

# Wrong files whose detail lines go through the kit's sentences (an element that differs, a mask
# row, a layer's name, a tensor made on the CPU, dropout, a cache, an error not raised) and the
# lessons' own; each one's exercise is a leaf, so that one file can hold them all.
DETAIL_FILES = (
    "03_scaling/wrong/generator-ignored.py",
    "04_softmax_masks/wrong/created-on-cpu.py",
    "05_attention/wrong/module-attribute-names.py",
    "06_multihead/wrong/params-not-int.py",
    "06_multihead/wrong/no-value-error__mha.py",
    "08_blocks/wrong/ffn-dropout-twice.py",
    "09_efficient/wrong/kv-cache-shared-between-instances.py",
    "09_efficient/wrong/window-not-causal.py",
)
ENGLISH_WORDS = re.compile(r"\b[A-Za-z]+(?: [A-Za-z]+){3}\b")  # four plain words in a row


def _detail_lines(report: str) -> list[str]:
    """The lines under each FAIL that the check wrote (not the mistake's title and hint)."""
    lines, inside = [], False
    for line in report.splitlines():
        if not line.startswith("      "):
            inside = f"  {_zh('FAIL')}  " in line
        elif line.strip().startswith(_zh("Looks like: [{id}]").split("[")[0].strip()):
            inside = False
        elif inside:
            lines.append(line.strip())
    return lines


def test_the_checks_detail_lines_are_chinese(tmp_path):
    """Answered by the session's warm grader, in each language (its replies are the direct ones:
    tests/check/test_service.py; the direct path speaks Chinese in
    ``test_check_names_the_mistake_in_chinese_under_a_chinese_locale``): two direct runs cost
    an import of torch and a sandbox each, about 8 CPU-s."""
    sys.path.insert(0, str(ROOT / "tests"))
    from lesson_files import BASE, graded_exercise

    paths = [ROOT / "tests" / "lessons" / name for name in DETAIL_FILES]
    submission = tmp_path / "wrong.py"
    submission.write_text("\n\n".join([BASE, *(p.read_text() for p in paths)]))
    names = [graded_exercise(p) for p in paths]
    zh = _check([str(submission), "--only", *names], _env(AUTOGRADER_LANG="zh-CN"))
    assert zh.returncode == 1, zh.stderr
    details = _detail_lines(zh.stdout)
    assert len(details) >= len(names), zh.stdout
    english = [line for line in details if ENGLISH_WORDS.search(line)]
    assert not english, f"English left in Chinese detail lines: {english}"
    en = _check([str(submission), "--only", *names], _env())
    assert all(ENGLISH_WORDS.search(line) for line in _detail_lines(en.stdout)), en.stdout


def test_a_checks_message_is_marked_for_translation():
    """``fail("...")`` or ``fail(f"...")`` in a check: a sentence no catalog can translate."""
    folders = [ROOT / "autograder" / "kit", *(ROOT / "autograder" / "lessons").glob("*")]
    literal = []
    for path in sorted(p for folder in folders for p in folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") in ("fail", "note")
                and node.args
                and isinstance(node.args[0], (ast.JoinedStr, ast.Constant))
            ):
                literal.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not literal, f"mark these messages with _() (autograder/locale/README.md): {literal}"


@pytest.mark.parametrize("verb", [["check"], ["grade"], ["progress"], ["drill", "start"], []])
def test_help_is_chinese_when_asked_and_english_otherwise(verb):
    run = [sys.executable, "-m", "autograder", *verb, "--help"]
    zh = subprocess.run(run, cwd=ROOT, env=_env(LANG="zh_CN.UTF-8"), capture_output=True, text=True)
    en = subprocess.run(run, cwd=ROOT, env=_env(), capture_output=True, text=True)
    assert zh.returncode == en.returncode == 0, zh.stderr
    assert (
        zh.stdout.startswith(_zh("usage: ")) and _zh("show this help message and exit") in zh.stdout
    )
    assert en.stdout.startswith("usage: ") and "show this help message and exit" in en.stdout
    assert not any("\u4e00" <= c <= "\u9fff" for c in en.stdout)
    helps = [line for line in zh.stdout.splitlines() if line.startswith("  ") and "  " in line[3:]]
    english = [  # a help text with four English words in a row and no Chinese at all
        line
        for line in helps
        if ENGLISH_WORDS.search(line.split("  ")[-1])
        and not any("\u4e00" <= c <= "\u9fff" for c in line)
    ]
    assert not english, f"--help lines left in English: {english}"


@given(
    st.text(alphabet=st.sampled_from(list("注意力，。ab_ 1")), max_size=20),
    st.integers(min_value=0, max_value=40),
)
def test_padding_counts_terminal_columns(text, width):
    """A table's columns line up when a Chinese character counts as two columns."""
    for padded in (i18n.ljust(text, width), i18n.rjust(text, width)):
        assert padded.strip(" ") == text.strip(" ") or text.strip(" ") in padded
        assert i18n.cells(padded) == max(width, i18n.cells(text))
    assert i18n.ljust(text, width).startswith(text) and i18n.rjust(text, width).endswith(text)


def test_a_cell_and_a_tracebacks_places_are_said_in_the_current_language():
    """The sandbox names a learner's cells ``cell 7`` and writes their traceback lines
    ``  cell 7, line 13, in softmax: <code>``: inside a Chinese message, Chinese too (a trial);
    the code after them, and a file's name, as they are; English unchanged."""
    trace = "  cell 7, line 13, in softmax: m = x.max(dim)\n  mine.py, line 2, in f: return g(x)"
    with i18n.use("en"):
        assert i18n.frames(trace) == trace and i18n.cell("cell 7") == "cell 7"
    with i18n.use("zh-CN"):
        said = i18n.frames(trace).splitlines()
        assert i18n.cell("cell 7") == _zh("cell {number}").format(number=7)
        assert i18n.cell("mine.py") == "mine.py"
    place = _zh("{place}, line {line}, in {function}: ")
    assert said == [
        "  "
        + place.format(place=_zh("cell {number}").format(number=7), line=13, function="softmax")
        + "m = x.max(dim)",
        "  " + place.format(place="mine.py", line=2, function="f") + "return g(x)",
    ]


def test_a_file_with_nothing_to_grade_says_so_in_chinese_and_names_its_answers(tmp_path):
    """An answers-only .py (trial 39): the error was English under a Chinese locale, and did not
    say that answers are graded with --only."""
    answers = tmp_path / "answers.py"
    answers.write_text("answer_04_1 = 21\n", encoding="utf-8")
    zh = _check([str(answers), "--no-daemon"], _env(LANG="zh_CN.UTF-8"))
    en = _check([str(answers), "--no-daemon"], _env())
    assert zh.returncode == en.returncode == 2
    assert "--only answer_04_1" in zh.stderr and "--only answer_04_1" in en.stderr
    assert "no exercise found" in en.stderr and "no exercise found" not in zh.stderr
    assert any("\u4e00" <= c <= "\u9fff" for c in zh.stderr)


def test_the_sandboxs_and_the_readers_own_reasons_are_chinese(tmp_path):
    """What the sandbox says of code that stops the grader, and why a notebook cannot be read,
    were English f-strings in Chinese output (the instructors' helper's leftovers)."""
    exits = tmp_path / "exits.py"
    exits.write_text("def attention_scores(q, k):\n    raise SystemExit(0)\n", encoding="utf-8")
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{ not a notebook", encoding="utf-8")
    said = _check([str(exits), "--no-daemon"], _env(LANG="zh_CN.UTF-8"))
    assert said.returncode == 1 and "SystemExit" in said.stdout
    assert "instead of returning a value" not in said.stdout
    unread = _check([str(broken), "--no-daemon"], _env(LANG="zh_CN.UTF-8"))
    assert unread.returncode == 2 and "not a notebook" not in unread.stderr
    assert "broken.ipynb" in unread.stderr and "JSON" in unread.stderr
    assert any("\u4e00" <= c <= "\u9fff" for c in said.stdout + unread.stderr)

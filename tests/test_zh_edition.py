"""The Simplified Chinese edition (``zh-CN/``) is the English course, translated, and no more.

One source of truth for code: each Chinese solution notebook ``zh-CN/solutions/<L>/<L>.ipynb``
has the English one's cells, in the same order, with the same types, ids and metadata (nbgrader's
``grade_id``, points, locks...). What may differ is what a human reads:

- markdown cells are translated, but keep their structure: the same question markers
  (``**Question NN.n.**`` becomes ``**问题 NN.n.**``) and answer options ``(a)``, ``(b)``..., the
  same mistake ids (``[inverted-mask]``), links, math and code spans, and headings; in math, only
  the words of a ``\\text{...}`` may become Chinese (``\\text{query } i`` as ``\\text{查询 } i``:
  a Chinese reader should not meet English prose inside a formula), the rest of it unchanged;
- code cells are the same program: equal ASTs once comments are dropped, where a string
  literal may differ only by becoming Chinese text, and only where a human reads it (an
  identifier-like string such as ``"causal"`` may change only inside ``print``, an f-string, a
  docstring, a plot label); f-string fields and format specs stay as they are (their order may
  change with the sentence); magics are unchanged;
- graded test cells (nbgrader ``grade: true``) and answer cells (``answer_NN_k``) are byte for
  byte the English ones, so a Chinese submission is graded by the same checks for the same points.

No test here runs a notebook. The release (``scripts/release.py``) makes ``zh-CN/notebooks/``
from these sources exactly as it makes ``notebooks/``; that the committed ones are that release
is checked by each lesson's run (``tests/test_notebooks.py``, ``tests/lesson_runs.py``).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
from collections import Counter
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
EN = ROOT / "solutions"
ZH = ROOT / "zh-CN" / "solutions"
LESSONS = sorted(p.name for p in EN.iterdir() if (p / f"{p.name}.ipynb").is_file())
TRANSLATED = [lesson for lesson in LESSONS if (ZH / lesson / f"{lesson}.ipynb").is_file()]


CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
QUESTION_EN = re.compile(r"\*\*Question (\d\d\.\d+)\.\*\*")
QUESTION_ZH = re.compile(r"\*\*问题 (\d\d\.\d+)\.\*\*")
OPTION = re.compile(r"(?<![\w`])\(([a-h])\)")
MISTAKE = re.compile(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]")
URL = re.compile(r"https?://[^\s)>\]]+")
# A fenced block (its comments may be translated), and spans, which may wrap across lines.
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```", re.S | re.M)
MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.S)
CODE_SPAN = re.compile(r"`[^`]+`")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
# Calls and keywords whose strings a human reads (a plot's labels, a printout).
HUMAN_CALLS = {"print", "set_title", "set_xlabel", "set_ylabel", "suptitle", "legend", "text"}
HUMAN_KEYWORDS = {"title", "titles", "xlabel", "ylabel", "label", "labels", "desc", "caption"}


def notebooks(lesson: str):
    en = nbformat.read(EN / lesson / f"{lesson}.ipynb", as_version=4)
    zh = nbformat.read(ZH / lesson / f"{lesson}.ipynb", as_version=4)
    return en, zh


def test_every_english_lesson_has_a_chinese_one():
    missing = sorted(lesson for lesson in LESSONS if lesson not in TRANSLATED)
    assert not missing, (
        f"no Chinese edition of {missing}: translate solutions/<L>/<L>.ipynb into "
        "zh-CN/solutions/<L>/<L>.ipynb (CONTRIBUTING.md, 'Change a lesson: both editions')"
    )
    extra = sorted(p.name for p in ZH.iterdir() if p.is_dir() and p.name not in LESSONS)
    assert not extra, f"zh-CN/solutions/ has lessons the English course lacks: {extra}"


# ---- the comparison ------------------------------------------------------------------------


def _magics(source: str) -> tuple[list[str], str]:
    """The cell's magic lines (``%...``, ``!...``), and its Python with them blanked out."""
    magics, python = [], []
    for line in source.splitlines():
        if line.lstrip().startswith(("%", "!")):
            magics.append(line.strip())
            python.append("")
        else:
            python.append(line)
    return magics, "\n".join(python)


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _human(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether a human reads the string ``node``: a docstring, f-string text, or an argument of
    a printout or a plot label."""
    parent = parents.get(node)
    if isinstance(parent, ast.Expr) and isinstance(
        parents.get(parent), ast.FunctionDef | ast.ClassDef | ast.Module | ast.AsyncFunctionDef
    ):
        return True
    while parent is not None:
        if isinstance(parent, ast.JoinedStr):
            return True
        if isinstance(parent, ast.keyword) and parent.arg in HUMAN_KEYWORDS:
            return True
        if isinstance(parent, ast.Call):
            func = parent.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            return name in HUMAN_CALLS
        node, parent = parent, parents.get(parent)
    return False


def _strings(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of ``tree`` in walk order, but none inside an f-string (f-strings are
    compared apart: their text, and their fields exactly)."""
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in inside
    ]


def _field(value: ast.FormattedValue) -> str:
    """An f-string field as the code sees it: its expression with its strings normalised (a
    header such as ``{'heads':>5}`` is text a human reads), its conversion and format spec exact."""
    expression = ast.dump(_Normalise().visit(ast.parse(ast.unparse(value.value), mode="eval")))
    spec = ast.dump(value.format_spec) if value.format_spec else ""
    return f"{expression}!{value.conversion}:{spec}"


class _Normalise(ast.NodeTransformer):
    """Every string constant becomes ``"…"``; every f-string becomes its fields, sorted."""

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        fields = sorted(_field(v) for v in node.values if isinstance(v, ast.FormattedValue))
        return ast.Constant(value="f:" + "|".join(fields))

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant(value="…") if isinstance(node.value, str) else node


def code_differences(english: str, chinese: str) -> list[str]:
    """What makes ``chinese`` more than a translation of the code cell ``english`` (empty when
    it is one)."""
    en_magics, en_python = _magics(english)
    zh_magics, zh_python = _magics(chinese)
    if en_magics != zh_magics:
        return [f"magics differ: {en_magics} vs {zh_magics}"]
    try:
        en_tree, zh_tree = ast.parse(en_python), ast.parse(zh_python)
    except SyntaxError as e:
        return [f"does not parse: {e}"]
    if ast.dump(_Normalise().visit(ast.parse(en_python))) != ast.dump(
        _Normalise().visit(ast.parse(zh_python))
    ):
        return ["the code differs (beyond comments and the text of strings)"]
    problems = []
    zh_parents = _parents(zh_tree)
    for a, b in zip(_strings(en_tree), _strings(zh_tree), strict=True):
        if a.value == b.value:
            continue
        if not CJK.search(b.value):
            problems.append(f"line {b.lineno}: {a.value!r} became {b.value!r}, not a translation")
        elif IDENTIFIER.fullmatch(a.value) and not _human(b, zh_parents):
            problems.append(
                f"line {b.lineno}: {a.value!r} became {b.value!r}, a string the code may use"
            )
    for a, b in zip(_fstrings(en_tree), _fstrings(zh_tree), strict=True):
        en_text = "".join(v.value for v in a.values if isinstance(v, ast.Constant))
        zh_text = "".join(v.value for v in b.values if isinstance(v, ast.Constant))
        if en_text != zh_text and not CJK.search(zh_text):
            problems.append(f"line {b.lineno}: f-string text changed, not to Chinese: {zh_text!r}")
        en_fields, zh_fields = Counter(_field_strings(a)), Counter(_field_strings(b))
        for changed in zh_fields - en_fields:
            if not CJK.search(changed):
                problems.append(f"line {b.lineno}: {changed!r} in an f-string field changed")
    return problems


def _field_strings(fstring: ast.JoinedStr) -> list[str]:
    """The strings inside an f-string's field expressions (format specs excluded)."""
    return [
        n.value
        for v in fstring.values
        if isinstance(v, ast.FormattedValue)
        for n in ast.walk(v.value)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _fstrings(tree: ast.AST) -> list[ast.JoinedStr]:
    """The f-strings of ``tree`` that are not a format spec inside another."""
    specs = {
        id(n.format_spec)
        for n in ast.walk(tree)
        if isinstance(n, ast.FormattedValue) and n.format_spec is not None
    }
    return [n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) and id(n) not in specs]


def markdown_differences(english: str, chinese: str) -> list[str]:
    """What a translation of the markdown cell ``english`` lost or changed (empty when none)."""
    problems = []
    asked_en, asked_zh = QUESTION_EN.findall(english), QUESTION_ZH.findall(chinese)
    if asked_en != asked_zh:
        problems.append(f"asks questions {asked_zh}, the English {asked_en} (as **问题 NN.n.**)")
    if QUESTION_EN.search(chinese):
        problems.append("an English question marker **Question NN.n.** left in")
    if OPTION.findall(english) != OPTION.findall(chinese):
        problems.append(
            f"answer options {OPTION.findall(chinese)}, the English {OPTION.findall(english)}"
        )
    for what, pattern in (("mistake ids", MISTAKE), ("links", URL)):
        if Counter(pattern.findall(english)) != Counter(pattern.findall(chinese)):
            problems.append(f"{what} differ: {sorted(set(pattern.findall(english)))}")
    for what, pattern in (("math", MATH), ("code spans", CODE_SPAN)):
        lost = _spans(pattern, english) - _spans(pattern, chinese)
        if what == "math":
            theirs = _spans(pattern, chinese)
            lost = {span for span in lost if not any(_text_translated(span, z) for z in theirs)}
        if lost:
            problems.append(f"{what} lost or changed: {sorted(lost)}")
    headings_en = re.findall(r"^(#{1,6}) ", english, re.M)
    headings_zh = re.findall(r"^(#{1,6}) ", chinese, re.M)
    if headings_en != headings_zh:
        problems.append(f"headings {headings_zh}, the English {headings_en}")
    return problems


TEXT = re.compile(r"\\text\{([^{}]*)\}")


def _text_translated(english: str, chinese: str) -> bool:
    """Whether the math span ``chinese`` is ``english`` with the words of some ``\\text{...}``
    translated into Chinese, and nothing else changed."""
    parts = TEXT.split(english)  # outside, text, outside, text, ..., outside
    if len(parts) == 1:
        return False
    pattern = "".join(
        re.escape(part) if n % 2 == 0 else r"\\text\{([^{}]*)\}" for n, part in enumerate(parts)
    )
    found = re.fullmatch(pattern, chinese)
    return bool(found) and all(
        theirs == ours or CJK.search(theirs)
        for ours, theirs in zip(parts[1::2], found.groups(), strict=True)
    )


def _spans(pattern: re.Pattern, text: str) -> set[str]:
    """The spans ``pattern`` finds outside fenced blocks, each with its white space collapsed
    (a translation wraps its lines elsewhere)."""
    return {" ".join(m.split()) for m in pattern.findall(FENCE.sub("", text))}


def graded_or_answer(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) or str(meta.get("grade_id", "")).startswith("answer_")


def edition_differences(en, zh) -> list[str]:
    """Every way the Chinese notebook ``zh`` is more than a translation of ``en``."""
    if dict(en.metadata) != dict(zh.metadata):
        return ["notebook metadata differs (copy the English notebook's)"]
    if len(en.cells) != len(zh.cells):
        return [f"{len(zh.cells)} cells, the English has {len(en.cells)}"]
    problems = []
    for n, (a, b) in enumerate(zip(en.cells, zh.cells, strict=True), start=1):
        where = f"cell {n} ({a.get('id')})"
        if (a.cell_type, a.get("id")) != (b.cell_type, b.get("id")):
            problems.append(f"{where}: is a {b.cell_type} cell with id {b.get('id')}")
            continue
        if dict(a.metadata) != dict(b.metadata):
            problems.append(f"{where}: metadata differs")
        if b.cell_type == "code" and (b.outputs or b.execution_count is not None):
            problems.append(f"{where}: has outputs (strip them)")
        if a.cell_type == "code" and graded_or_answer(a):
            if a.source != b.source:
                problems.append(
                    f"{where}: a graded or answer cell, must be the English byte for byte"
                )
        elif a.cell_type == "code":
            problems += [f"{where}: {p}" for p in code_differences(a.source, b.source)]
        elif a.cell_type == "markdown":
            problems += [f"{where}: {p}" for p in markdown_differences(a.source, b.source)]
    return problems


@pytest.mark.parametrize("lesson", TRANSLATED)
def test_the_chinese_notebook_is_the_english_one_translated(lesson):
    problems = edition_differences(*notebooks(lesson))
    assert not problems, f"zh-CN/solutions/{lesson}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("lesson", TRANSLATED)
def test_question_prompts_are_asked_in_the_same_cells(lesson):
    """The Chinese edition asks the questions of ``autograder/questions.py`` (whose prompts are
    the English notebook's text) in the cells where the English one asks them, as **问题 NN.n.**,
    and its answer cells are the English ones (tested above), so the answers are the same."""
    from autograder.questions import QUESTIONS

    en, zh = notebooks(lesson)
    asked = {
        cell.id: QUESTION_ZH.findall(cell.source)
        for cell in zh.cells
        if cell.cell_type == "markdown"
    }
    ours = {qid.replace("_", ".") for qid in QUESTIONS if qid[:2] == lesson[:2]}
    assert {q for qs in asked.values() for q in qs} == ours
    for cell in en.cells:
        if cell.cell_type == "markdown":
            assert asked[cell.id] == QUESTION_EN.findall(cell.source), cell.id


@pytest.mark.parametrize("lesson", TRANSLATED)
def test_the_chinese_blank_notebook_is_the_english_one_translated(lesson):
    """The released blank notebooks compare as their sources do (but for the checksum nbgrader
    writes of each cell's source, which differs where the text does). With the English blank run
    (tests/lesson_runs.py), this is what lets a Chinese run execute its solution notebook only:
    the Chinese blank is the English blank's program, with other words in what it shows."""
    en, zh = (
        nbformat.read(folder / lesson / f"{lesson}.ipynb", as_version=4)
        for folder in (ROOT / "notebooks", ROOT / "zh-CN" / "notebooks")
    )
    for cell in en.cells + zh.cells:
        cell.metadata.get("nbgrader", {}).pop("checksum", None)
    problems = edition_differences(en, zh)
    assert not problems, f"zh-CN/notebooks/{lesson}:\n  " + "\n  ".join(problems)


HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("lesson", TRANSLATED)
def test_a_stated_reading_time_is_the_chinese_texts_own(lesson):
    """A Chinese **时长：** line that states "约 N 个汉字" counts the Chinese text as the English
    line counts its words (tests/test_notebooks.py::test_a_stated_word_count_is_the_notebooks_own):
    the markdown's Han characters, the optional notes (``<details>``) left out, within 10 %; and
    its minutes are those characters at the speed it states. (A reading time worked out from the
    English word count means nothing to a Chinese reader.)"""
    _, zh = notebooks(lesson)
    text = "\n".join(c.source for c in zh.cells if c.cell_type == "markdown")
    stated = re.search(
        r"正文阅读约 (\d+) 分钟（注释之外约 ([\d,]+) 个汉字，按每分钟 (\d+) 字计", text
    )
    assert "每分钟 200 词" not in text, f"{lesson}: a reading time from the English word count"
    if stated:
        chars = len(HAN.findall(re.sub(r"<details>.*?</details>", "", text, flags=re.S)))
        claimed = int(stated[2].replace(",", ""))
        assert abs(chars - claimed) <= 0.1 * chars, f"{lesson}: says {claimed}, has {chars}"
        assert abs(int(stated[1]) - chars / int(stated[3])) <= 1, f"{lesson}: {stated[0]}"


# An English label a Chinese lesson's structure words were left in (trial 39: **Time:**（用时）,
# 学完本课（After this lesson）, 练习 1（Exercise 1）, **Next:**（下一课）).
ENGLISH_LABEL = re.compile(
    r"\*\*(Time|Next|Exercise \d+):?\*\*|（(After this lesson|Exercise \d+|Time|Next)）"
)


@pytest.mark.parametrize("lesson", TRANSLATED)
def test_the_chinese_lesson_names_its_parts_and_menus_in_chinese(lesson):
    """Its structure words are Chinese (时长, 下一课, 练习 N), and a JupyterLab menu path is given
    as the Chinese lab shows it (``make lab LANG=zh-CN`` installs the language pack), the English
    one beside it for a learner whose lab is in English."""
    _, zh = notebooks(lesson)
    for cell in zh.cells:
        if cell.cell_type != "markdown":
            continue
        found = ENGLISH_LABEL.search(cell.source)
        assert not found, f"{lesson} {cell.id}: {found[0]!r}"
        if "Kernel → " in cell.source:
            assert "内核 → " in cell.source, f"{lesson} {cell.id}: an English menu path only"


# ---- the comparison catches what it must (and lets a translation through) ------------------

ENGLISH_CELL = '''
def show(weights, mode="causal"):
    """Plot the weights."""
    # one row per query
    print(f"{'heads':>5} {'loss':>6}")
    print(f"{weights.shape} weights, max {weights.max():.3f}")
    plot_attention(weights, title="attention weights")
    return mask_for(mode)
'''


def test_a_translated_code_cell_passes():
    chinese = ENGLISH_CELL.replace('"""Plot the weights."""', '"""画出注意力权重。"""')
    chinese = chinese.replace("# one row per query", "# 每个查询一行")
    chinese = chinese.replace(
        'f"{weights.shape} weights, max {weights.max():.3f}"',
        'f"最大值 {weights.max():.3f}，形状 {weights.shape}"',
    )
    chinese = chinese.replace('"attention weights"', '"注意力权重"')
    chinese = chinese.replace("{'heads':>5}", "{'头数':>5}")  # a header, in a field
    assert code_differences(ENGLISH_CELL, chinese) == []


@pytest.mark.parametrize(
    "english, chinese",
    [
        ('mode="causal"', 'mode="因果"'),  # a string the code uses
        ('mode="causal"', 'mode="padding"'),  # not a translation
        ("max():.3f}", "max():.2f}"),  # a format spec
        ("{'loss':>6}", "{'loss':>8}"),  # a field's format spec
        ("{'loss':>6}", "{'lost':>6}"),  # a field's string, not translated
        ("{'loss':>6}", "{'loss'!r:>6}"),  # a conversion
        ("weights.max()", "weights.min()"),  # the code
        ("return mask_for(mode)", "return mask_for(mode, 1)"),
    ],
)
def test_a_changed_code_cell_fails(english, chinese):
    assert english in ENGLISH_CELL
    assert code_differences(ENGLISH_CELL, ENGLISH_CELL.replace(english, chinese))


def test_markdown_must_keep_questions_options_ids_math_and_code():
    english = "## Q\n**Question 04.2.** Which `causal_mask`? $QK^T$ (a) one (b) two [inverted-mask]"
    good = "## 问\n**问题 04.2.** 哪个 `causal_mask`？$QK^T$ (a) 一 (b) 二 [inverted-mask]"
    assert markdown_differences(english, good) == []
    wrapped = "$d_\\text{head} =\n  d/h$ of `x.view(B,\n L)`, then `y`"  # spans across lines
    assert markdown_differences(wrapped, "$d_\\text{head} = d/h$ 的 `x.view(B, L)`，然后 `y`") == []
    assert markdown_differences(wrapped, "$d_\\text{head} = d/h$ 的 `x.view(B, L)`，然后 y")
    formula = "$$\\texttt{mask[i, j]} \\iff \\text{query } i \\text{ may see key } j$$"
    translated = "$$\\texttt{mask[i, j]} \\iff \\text{查询 } i \\text{ 可以看到键 } j$$"
    assert markdown_differences(formula, translated) == []  # the words of \\text{}
    for bad in (
        translated.replace("键 } j", "键 } k"),  # the math around them
        translated.replace("\\text{查询 }", "\\text{row }"),  # not a translation
        translated.replace("\\iff", "\\implies"),
    ):
        assert markdown_differences(formula, bad), bad
    for bad in (
        good.replace("问题 04.2", "Question 04.2"),
        good.replace("问题 04.2", "问题 04.3"),
        good.replace("(b)", "(c)"),
        good.replace("[inverted-mask]", ""),
        good.replace("$QK^T$", "$QK$"),
        good.replace("`causal_mask`", "因果掩码"),
        good.replace("## 问\n", ""),
    ):
        assert markdown_differences(english, bad), bad


# ---- the Chinese course folder -------------------------------------------------------------


def test_the_chinese_course_has_the_english_settings_and_its_own_id():
    from traitlets.config.loader import PyFileConfigLoader

    english = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    chinese = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT / "zh-CN")).load_config()
    assert chinese.CourseDirectory.course_id != english.CourseDirectory.course_id
    del chinese.CourseDirectory["course_id"], english.CourseDirectory["course_id"]
    assert chinese == english


def test_release_knows_both_editions():
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    release = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(release)
    langs = {e.lang: e for e in release.EDITIONS}
    assert langs["zh-CN"].solutions == ZH
    assert langs["zh-CN"].notebooks == ROOT / "zh-CN" / "notebooks"
    assert release.assignments(ZH) == TRANSLATED


def _make_n(*args: str) -> str:
    """What ``make -n ARGS`` would run (nothing is run)."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    done = subprocess.run(
        ["make", "-n", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize("lang", ["LANG=zh-CN", "LANG=zh_CN.UTF-8"])
def test_make_lab_in_chinese_opens_the_chinese_edition_in_a_chinese_lab(lang):
    lab = [line for line in _make_n("lab", lang).splitlines() if " lab " in line][-1]
    assert lab.startswith("LANG=zh_CN.UTF-8 ")  # the kernels' and the grader's locale
    assert "--ServerApp.root_dir=zh-CN/notebooks" in lab
    assert "settings-zh-CN" in lab and "default_url=/lab/tree/00_setup/00_setup.ipynb" in lab
    assert "LANG=zh_CN.UTF-8 .venv/bin/python -m autograder.service start" in _make_n("lab", lang)
    grade = _make_n("grade", lang).splitlines()[-1]
    assert "grade zh-CN/submitted --out zh-CN/grades/grades.csv" in grade


@pytest.mark.parametrize("args", [("LANG=C.UTF-8",), ("LANG=zh_CN.UTF-8", "COURSE_LANG=en")])
def test_make_lab_in_english_is_unchanged(args):
    lab = [line for line in _make_n("lab", *args).splitlines() if " lab " in line][-1]
    assert "--ServerApp.root_dir=notebooks" in lab and "zh" not in lab
    assert "grade submitted --out grades/grades.csv" in _make_n("grade", *args)


@pytest.mark.slow
def test_an_edition_is_released_on_its_own_and_checked(tmp_path, capsys):
    """release_edition: --check finds a missing release, a release makes it, an edition that
    lacks the lessons asked for is left alone, and a lesson gone from its sources is stale."""
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    release = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(release)
    lesson = TRANSLATED[0]
    shutil.copytree(ZH / lesson, tmp_path / "solutions" / lesson)
    edition = release.Edition("zh-CN", tmp_path)
    monkey_root = release.ROOT
    release.ROOT = tmp_path  # paths in messages are relative to it
    try:
        assert release.release_edition(edition, check=True) == 1
        assert release.release_edition(edition) == 0
        assert (tmp_path / "notebooks" / lesson / f"{lesson}.ipynb").is_file()
        assert release.release_edition(edition, check=True) == 0
        assert release.release_edition(edition, ["99_elsewhere"], check=True) == 0
        shutil.rmtree(tmp_path / "solutions" / lesson)
        assert release.release_edition(edition, check=True) == 1
        assert "lacks" in capsys.readouterr().out
    finally:
        release.ROOT = monkey_root

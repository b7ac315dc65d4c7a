"""A CJK font joins the figures as a fallback: Chinese labels get glyphs, English ones do not
change."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import matplotlib
import pytest
from matplotlib import font_manager
from matplotlib.figure import Figure

import course_lib
from course_lib import fonts


def _png(text: str) -> bytes:
    fig = Figure(figsize=(3, 1))
    fig.text(0.1, 0.5, text, fontsize=12)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=60)
    return buf.getvalue()


def test_a_fallback_family_leaves_english_text_as_it_was():
    """The mechanism use_cjk_fallback relies on: a family appended after the default draws only
    what the default cannot (here DejaVu Serif, which every matplotlib ships, stands in for the
    CJK font, which a test machine may not have)."""
    text = "keys → queries, d_k = 64, $\\sqrt{d_k}$ (a) ✔"
    with matplotlib.rc_context({"font.family": ["sans-serif"]}):
        alone = _png(text)
    with matplotlib.rc_context({"font.family": ["sans-serif", "DejaVu Serif"]}):
        with_fallback = _png(text)
    with matplotlib.rc_context({"font.family": ["DejaVu Serif"]}):
        serif = _png(text)
    assert with_fallback == alone
    assert serif != alone  # the comparison can tell two fonts apart


def test_the_preferred_installed_family_is_picked(monkeypatch):
    fake = [
        font_manager.FontEntry(fname=f"/fonts/{name}.ttf", name=name)
        for name in ("DejaVu Sans", "SimHei", "WenQuanYi Micro Hei")
    ]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", fake)
    monkeypatch.setattr(fonts, "_register_mplfonts", lambda: None)
    assert fonts.cjk_family() == "WenQuanYi Micro Hei"  # earlier in CJK_FAMILIES than SimHei
    with matplotlib.rc_context({"font.family": ["sans-serif"]}):
        assert fonts.use_cjk_fallback() == "WenQuanYi Micro Hei"
        assert fonts.use_cjk_fallback() == "WenQuanYi Micro Hei"  # added once
        assert matplotlib.rcParams["font.family"] == ["sans-serif", "WenQuanYi Micro Hei"]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", fake[:1])
    with matplotlib.rc_context({"font.family": ["sans-serif"]}):
        assert fonts.use_cjk_fallback() is None
        assert matplotlib.rcParams["font.family"] == ["sans-serif"]


def test_an_installed_cjk_font_draws_chinese():
    family = fonts.cjk_family()
    if family is None:
        pytest.skip("no CJK font installed here (make cjk-font installs one)")
    path = font_manager.findfont(font_manager.FontProperties(family=family))
    assert font_manager.get_font(path).get_char_index(ord("注")) != 0, (family, path)


def test_without_a_cjk_font_only_the_chinese_glyph_warnings_are_silenced(monkeypatch):
    """No font to draw them with: the notebook's output is not flooded with a warning per
    character a learner cannot act on; a missing glyph of another script still warns."""
    import warnings

    monkeypatch.setattr(fonts, "cjk_family", lambda: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fonts.use_cjk_fallback() is None
        with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
            _png("注意力权重：形状")
            assert not [w for w in caught if "missing from font" in str(w.message)]
            _png("\u0e01")  # a Thai letter, which DejaVu Sans lacks too
    assert [w for w in caught if "THAI" in str(w.message)]


@pytest.mark.parametrize("lang, told", [("zh-CN", True), ("en", False)])
def test_a_chinese_notebook_without_a_font_is_told_once_how_to_install_one(
    monkeypatch, capsys, lang, told
):
    from course_lib import language

    monkeypatch.setenv("AUTOGRADER_LANG", lang)
    monkeypatch.setattr(fonts, "cjk_family", lambda: None)
    monkeypatch.setattr(fonts, "_said", [])
    assert language.chinese() is told
    fonts.use_cjk_fallback()
    fonts.use_cjk_fallback()
    said = capsys.readouterr().out
    assert said.count("make cjk-font") == (1 if told else 0), said
    assert ("fonts-wqy-microhei" in said) is told


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"AUTOGRADER_LANG": "zh-CN"}, "zh-CN"),
        ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
        ({"JPY_SESSION_NAME": "/course/zh-CN/notebooks/05_attention/05_attention.ipynb"}, "zh-CN"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"AUTOGRADER_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_course_lib_chooses_the_language_as_the_grader_does(monkeypatch, tmp_path, env, expected):
    from autograder import i18n
    from course_lib import language

    for name in ("AUTOGRADER_LANG", "JPY_SESSION_NAME", *language.LOCALE_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert language.language() == i18n.language() == expected


def _top_level_calls_and_imports(path: Path) -> tuple[set[str], set[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported, called = set(), set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            called.add(getattr(func, "id", getattr(func, "attr", "")))
    return imported, called


@pytest.mark.parametrize(
    "path",
    sorted(Path(course_lib.__file__).parent.glob("*.py")),
    ids=lambda p: p.name,
)
def test_a_module_that_loads_matplotlib_sets_up_the_chinese_fallback(path):
    """Loading matplotlib without :func:`use_matplotlib` leaves a Chinese notebook's figures
    without the CJK fallback and its glyph warnings on stderr (zh-CN lesson 09, whose plot module
    built its figures directly, once matplotlib stopped loading in the import cell)."""
    imported, called = _top_level_calls_and_imports(path)
    if "matplotlib" in imported and path.name != "viz_figures.py":
        assert "use_matplotlib" in called, f"{path.name} imports matplotlib: call use_matplotlib()"

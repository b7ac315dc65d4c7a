"""The words course_lib draws in figures and widgets have a Chinese version (course_lib/labels.py)
and an English one that is the text it always drew."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import torch
from matplotlib.text import Text

import course_lib
from course_lib import labels
from course_lib.scaling import dot_product_variance, softmax_entropy
from course_lib.viz_masks import MaskBuilder
from course_lib.viz_scaling import SaturationExplorer, plot_variance_vs_dk

SOURCES = sorted(Path(course_lib.__file__).parent.glob("*.py"))
# device.py is also a command-line check (python -m course_lib.device: its argparse text stays
# English); its environment report, which lesson 00 prints, goes through tr.
DRAWN = [p for p in SOURCES if p.name != "device.py"]

# Calls that put text in a figure or a widget, and the keyword arguments that carry it.
SINK_CALLS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate", "HTML"}
SINK_CALLS |= {"Label", "legend", "colorbar", "set"}
SINK_KEYWORDS = {"label", "description", "title", "xlabel", "ylabel", "options", "placeholder"}
# Labels that are code or math, drawn as they are in both languages.
CODE_LIKE = {"W_Q, W_K ×", "W_K = W_Q", "bias=True", "d_k", "$d_k$", "PE(p) · PE(p + k)", "÷√d_k"}
CODE_LIKE |= {"softmax(masked_scores(scores, mask))", "m, l, acc"}
CJK = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"


def _words(text: str) -> bool:
    """Whether ``text`` has a word to translate: two letters in a row outside $math$."""
    return bool(re.search(r"[A-Za-z]{2}", re.sub(r"\$[^$]*\$", "", text)))


def _literal_texts(node: ast.AST) -> list[str]:
    """The text a literal argument writes: a str, an f-string's literal parts, a list of strs."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["".join(p.value for p in node.values if isinstance(p, ast.Constant))]
    if isinstance(node, ast.List | ast.Tuple):
        return [t for element in node.elts for t in _literal_texts(element)]
    return []


def _name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            yield node


def english_labels_drawn_as_they_are(path: Path) -> list[str]:
    """Literal text with words given straight to a figure or widget (not through ``tr``), or
    assigned to a widget's ``value``, in one course_lib source file."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        arguments = []
        if isinstance(node, ast.Call):
            if _name(node.func) in SINK_CALLS:
                arguments += node.args
            arguments += [k.value for k in node.keywords if k.arg in SINK_KEYWORDS]
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "value" for t in node.targets
        ):
            arguments.append(node.value)
        for argument in arguments:
            for text in _literal_texts(argument):
                if _words(text) and text not in CODE_LIKE:
                    found.append(f"{path.name}:{argument.lineno}: {text!r}")
    return found


def translated_texts(path: Path) -> list[tuple[str, int, str]]:
    """Every literal passed to ``tr`` or marked ``N_`` in one source file."""
    return [
        (path.name, call.lineno, call.args[0].value)
        for call in _calls(path)
        if _name(call.func) in ("tr", "N_")
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    ]


def test_every_label_course_lib_draws_goes_through_tr():
    found = [line for path in DRAWN for line in english_labels_drawn_as_they_are(path)]
    assert not found, (
        "labels drawn in English only: write tr('...') (or N_('...') where the text is kept in "
        "data) and add the Chinese to course_lib/labels.py ZH:\n" + "\n".join(found)
    )


def test_every_translated_label_has_a_chinese_entry_and_every_entry_is_used():
    texts = [t for path in SOURCES for t in translated_texts(path)]
    missing = [f"{name}:{line}: {text!r}" for name, line, text in texts if text not in labels.ZH]
    assert not missing, "no Chinese in course_lib/labels.py ZH for:\n" + "\n".join(missing)
    unused = set(labels.ZH) - {text for _, _, text in texts}
    assert not unused, f"entries of ZH no course_lib code draws: {sorted(unused)}"


@pytest.mark.parametrize("english", sorted(labels.ZH))
def test_a_chinese_entry_is_chinese_and_keeps_the_fields(english):
    chinese = labels.ZH[english]

    def fields(text):
        return set(re.findall(r"\{(\w*)[^}]*\}", re.sub(r"\$[^$]*\$", "", text)))

    assert fields(chinese) == fields(english)
    # matplotlib draws a text with $math$ in it with its math fonts: they have no Chinese glyphs
    assert "$" not in chinese or not re.search(CJK, chinese), f"{chinese!r}: no $math$ here"
    if _words(english.replace("d_k", "")) and english.strip() != "and":
        assert re.search(CJK, chinese), f"{english!r} -> {chinese!r}"


def test_the_checks_find_an_english_label_and_a_missing_entry(tmp_path):
    """The two checks above can fail."""
    source = tmp_path / "viz_new.py"
    source.write_text(
        "ax.set_xlabel('new axis')\n"
        "ax.set_ylabel(tr('only in English'))\n"
        "w = widgets.Checkbox(description=f'show {n} rows')\n"
        "self.summary.value = 'some text'\n"
        "ax.set_title(tr('key'))\n"
        "ax.set_title('$d_k$')\n",
        encoding="utf-8",
    )
    assert len(english_labels_drawn_as_they_are(source)) == 3
    assert [t for _, _, t in translated_texts(source) if t not in labels.ZH] == ["only in English"]


def _texts(fig) -> set[str]:
    return {t.get_text() for t in fig.findobj(Text) if t.get_text()}


def test_a_plot_is_chinese_in_a_chinese_notebook_and_unchanged_in_an_english_one(monkeypatch):
    def plot():
        return plot_variance_vs_dk(dot_product_variance, dims=(1, 4, 16), num_samples=200)

    monkeypatch.setenv("AUTOGRADER_LANG", "en")
    english = _texts(plot())
    assert {"variance", "unscaled: variance grows like $d_k$", "yours / $d_k$"} <= english
    monkeypatch.setenv("AUTOGRADER_LANG", "zh-CN")
    chinese = _texts(plot())
    assert {"方差", "未缩放：方差随 d_k 增长", "你的 / d_k"} <= chinese
    assert not {t for t in english if _words(t)} & chinese  # no English word is left


def test_a_widget_is_chinese_in_a_chinese_notebook(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_LANG", "zh-CN")
    explorer = SaturationExplorer(softmax_entropy, dims=(1, 4, 16), num_queries=8)
    assert explorer.scaled.description == "除以 √d_k"
    assert explorer.summary.value.startswith("d_k = 4，未缩放：平均熵 <b>")
    assert "未缩放" in _texts(explorer.figure)
    scores = torch.zeros(3, 3)
    builder = MaskBuilder(scores, ["a", "b", "c"], lambda s, m: s.masked_fill(~m, float("-inf")))
    builder.preset.value = "causal"  # the value is the English name; the button shows Chinese
    assert builder.preset.label == "因果"
    assert builder.mask.tolist() == torch.ones(3, 3, dtype=torch.bool).tril().tolist()


def test_english_labels_are_the_english_text(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_LANG", "en")
    assert labels.tr("head {i}", i=3) == "head 3"
    assert labels.tr("{minutes:02d}:{seconds:02d} left", minutes=1, seconds=5) == "01:05 left"
    assert labels.tr("a title the learner wrote") == "a title the learner wrote"
    monkeypatch.setenv("AUTOGRADER_LANG", "zh-CN")
    assert labels.tr("head {i}", i=3) == "头 3"
    assert labels.tr("a title the learner wrote") == "a title the learner wrote"

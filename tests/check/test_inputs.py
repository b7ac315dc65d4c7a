"""A judge that trusts nothing it receives: files, links, and the text learner code returns.

Every way a file can fail to be read ends in a clear message and exit status 2, before the file
costs the judge much time or memory; a link is never followed; nothing a learner's code returns
can act on the terminal or forge a line of the report; ``points`` is always a float.
"""

from __future__ import annotations

import json
import os
import re

import nbformat
import pytest

from autograder import cli
from autograder.check import report
from autograder.core.extract import MAX_CODE_BYTES, ExtractError, from_file
from autograder.core.judge import judge_source
from autograder.core.result import Result, printable

GOOD = """import torch
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
"""


def notebook_json(*cells: dict) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": list(cells)})


def code_cell(source: str | None) -> dict:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    if source is not None:
        cell["source"] = source
    return cell


def check(capsys, *args) -> tuple[int, str, str]:
    status = cli.main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


MALFORMED = {
    # name: (file name, bytes, what the message must say)
    "3 million statements": ("big.py", b"x = 1\n" * 3_000_000, "more than the 2 MB"),
    "a notebook of too much code": (
        "big.ipynb",
        notebook_json(code_cell("x = 1\n" * (MAX_CODE_BYTES // 6 + 1))).encode(),
        "MB of code",
    ),
    "a deeply nested expression": ("deep.py", b"x = " + b"-" * 200_000 + b"1\n", "nested too"),
    "a long chain of operators": ("chain.py", b"x = " + b"1+" * 100_000 + b"1\n", "nested too"),
    "a cell missing its source": (
        "nosource.ipynb",
        notebook_json(code_cell(GOOD), code_cell(None)).encode(),
        "cell 2 is damaged",
    ),
    "invalid JSON": ("broken.ipynb", b'{"cells": [', "not valid JSON"),
    "deeply nested JSON": ("nested.ipynb", b"[" * 100_000, "not a"),
    "a JSON list": ("list.ipynb", b"[1, 2]", "not a"),
    "cells that are not a list": (
        "cells.ipynb",
        json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": 3}).encode(),
        "not a",
    ),
    "not UTF-8": ("latin.py", GOOD.encode() + b"# caf\xe9\n", "UTF-8"),
    "null bytes": ("nul.py", GOOD.encode() + b"x = 1\x00\n", "no exercise found"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_every_malformed_file_exits_2_with_a_clear_message(case, tmp_path, capsys):
    name, data, says = MALFORMED[case]
    path = tmp_path / name
    path.write_bytes(data)
    status, out, err = check(capsys, path)
    assert status == 2, out + err
    assert says in err and "Traceback" not in err + out
    assert str(tmp_path) not in err.replace(str(path), name)  # names the file, not its folder


def test_a_huge_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.py"
    with path.open("wb") as f:  # 18 MB, like the attack (sparse: nothing to read but zeros)
        f.truncate(18 * 2**20)
    monkeypatch.setattr("ast.parse", lambda *a, **k: pytest.fail("a huge file was parsed"))
    with pytest.raises(ExtractError, match="18.0 MB, more than the 2 MB"):
        from_file(path)


def test_a_symlinked_file_is_refused_and_not_followed(tmp_path, capsys):
    target = tmp_path / "secret.py"
    target.write_text(GOOD)
    link = tmp_path / "mine.py"
    link.symlink_to(target)
    status, out, err = check(capsys, link)
    assert status == 2
    assert "symbolic link" in err and "PASS" not in out


def test_a_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "mine.py"
    os.mkfifo(fifo)  # reading it would wait forever for a writer
    status, _, err = check(capsys, fifo)
    assert status == 2 and "not a regular file" in err


def test_control_characters_are_shown_not_obeyed():
    text = "bad\x1b[8mhidden\x1b[0m\r  PASS\x07 \u202eevil\x00"
    shown = printable(text)
    assert shown == "bad\\x1b[8mhidden\\x1b[0m\\r  PASS\\x07 \\u202eevil\\x00"
    assert printable("two\nlines") == "two\nlines"
    # every invisible formatting mark: the Arabic letter mark, word joiners, a zero-width no-break
    # space (red team round 27), as the right-to-left marks and zero-width spaces before them
    for mark in "\u061c\u2060\u2064\ufeff\u200b\u200f\u2066":
        assert printable(f"a{mark}b") == f"a\\u{ord(mark):04x}b"
    assert printable("权重 é") == "权重 é"


def test_a_message_cannot_forge_a_pass_line_or_hide_text():
    forged = "got a Evil\n  PASS  causal_mask  1/1\rScore: 1/1\x1b[8m"
    results = [Result("causal_mask", False, 0, 1, forged, None)]
    text = report.human("mine.py", results)
    assert "\x1b" not in text and "\r" not in text
    assert [ln for ln in text.splitlines() if ln.startswith(("  PASS", "  FAIL", "Score"))] == [
        "  FAIL  causal_mask  0/1",
        "Score: 0/1 (0 of 1 passed)",
    ]


def test_a_returned_objects_type_name_cannot_forge_the_report_and_points_are_floats():
    evil = (
        "import torch\n"
        "Evil = type('Evil\\n  PASS  causal_mask  1/1\\x1b[8m', (), {})\n"
        "def causal_mask(seq_len, device=None):\n"
        "    return Evil()\n" + GOOD
    )
    results = judge_source(evil, only=["causal_mask", "attention_scores"])
    text = report.human("mine.py", results)
    assert "\x1b" not in text
    # only the report's own lines start at the margin with PASS/FAIL: a forged line, if the type
    # name reaches the message at all, stays indented under the FAIL
    verdicts = [ln.split()[:2] for ln in text.splitlines() if ln.startswith(("  PASS", "  FAIL"))]
    assert verdicts == [["PASS", "attention_scores"], ["FAIL", "causal_mask"]]
    data = json.loads(report.as_json("mine.py", results))
    points = {r["exercise"]: r["points"] for r in data["results"]}
    assert points == {"attention_scores": 1.0, "causal_mask": 0.0}
    assert all(type(r[k]) is float for r in data["results"] for k in ("points", "max_points"))


def test_a_notebook_of_only_good_cells_still_reads(tmp_path):
    path = tmp_path / "mine.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# notes"), nbformat.v4.new_code_cell(GOOD)]
    nbformat.write(nb, path)
    code = from_file(path, label="mine.ipynb")
    assert code.file == "mine.ipynb" and "attention_scores" in code.defined


def test_only_names_an_exercise_a_syntax_error_hid(tmp_path, capsys):
    """``--only NAME`` on a file that does not parse says where, not "NAME is not defined"."""
    path = tmp_path / "slip.py"
    path.write_text(GOOD + "def softmax(x, dim=-1):\n    return x\n  y = 1\n")
    status, out, err = check(capsys, path, "--only", "attention_scores", "--no-daemon")
    assert status == 1, out + err
    assert "syntax error on line 6" in out and "not defined" not in out, out
    cells = tmp_path / "cells.ipynb"  # in a notebook: the cell that holds it, named
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in ("x = (", "import torch", GOOD + "  y = 1")]
    nbformat.write(nb, cells)
    status, out, err = check(capsys, cells, "--only", "attention_scores", "--no-daemon")
    assert status == 1 and 'attention_scores was not read: cell 3 ("' in out, out + err
    # the import cell not read: a NameError, and the cell behind it (a trial: only the NameError,
    # so the learner imported inside the function and hid the broken cell)
    uses = "def attention_scores(q, k):\n    return torch.matmul(q, k.transpose(-2, -1))\n"
    nb.cells = [nbformat.v4.new_code_cell(c) for c in ("import torch,", uses)]
    nbformat.write(nb, cells)
    status, out, err = check(capsys, cells, "--only", "attention_scores", "--no-daemon")
    assert status == 1 and "NameError" in out, out + err
    assert '\n      Not read: cell 1 ("import torch,") has a syntax error on line 1' in out, out


def test_json_is_utf8_text_with_only_what_could_act_on_a_terminal_escaped(
    tmp_path, capsys, monkeypatch
):
    """``check --json`` in Chinese prints the Chinese (trial 37: every character was a
    ``\\u6240`` escape), still one valid JSON object; a file name's bidirectional mark or control
    stays an escape, in the object read back as it was."""
    from autograder import i18n

    for name in (*i18n.LOCALE_VARIABLES, i18n.ENV, "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    name = "mine\u202e\x1b.py"
    path = tmp_path / name
    path.write_text(GOOD.replace("k.transpose(-2, -1)", "k"))
    status, out, err = check(capsys, path, "--json", "--no-daemon")
    assert status == 1, out + err
    data = json.loads(out)
    assert data["file"] == str(path) and data["results"][0]["passed"] is False
    message = data["results"][0]["message"]
    assert re.search("[\u4e00-\u9fff]", message) and message in out, out
    assert "\\u202e" in out and "\\u001b" in out and "\u202e" not in out and "\x1b" not in out
    status, out, err = check(capsys, tmp_path / "none\u202e.py", "--json", "--no-daemon")
    assert status == 2 and "\\u202e" in out and re.search("[\u4e00-\u9fff]", out), out
    assert json.loads(out)["file"] == str(tmp_path / "none\u202e.py")


def test_only_given_twice_grades_both_names(tmp_path, capsys):
    """Trial 43: ``--only A --only B`` graded B alone (argparse kept the last list)."""
    path = tmp_path / "two.py"
    path.write_text(GOOD + "def softmax(x, dim=-1):\n    return x\n")
    status, out, err = check(
        capsys, path, "--only", "attention_scores", "--only", "softmax", "--json", "--no-daemon"
    )
    graded = [r["exercise"] for r in json.loads(out)["results"]]
    assert graded == ["attention_scores", "softmax"], out + err


def test_a_raise_left_above_the_code_stops_its_cell_as_in_the_notebook(tmp_path):
    """Instructor trial 50: the stub's ``raise NotImplementedError()`` left above the learner's
    code stops the cell in the notebook (nbgrader gives 0), while grade read past it (full
    marks); the code after it is now not defined, and the problem says why. A raise with
    nothing after it (a blank cell) is no problem."""
    path = tmp_path / "stub.ipynb"
    nb = nbformat.v4.new_notebook()
    cells = ("raise NotImplementedError()\n" + GOOD, "answer_04_1 = 3\nraise NotImplementedError()")
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, path)
    code = from_file(path)
    assert "attention_scores" not in code.defined and "answer_04_1" in code.defined
    [problem] = code.problems
    assert problem.startswith('cell 1 ("raise NotImplementedError()"), line 1: this raise stops')
    assert code.unread_definition("attention_scores") == problem

"""The Chinese edition's Gradescope bundle (``make gradescope LANG=zh-CN``): it carries the
Chinese notebook where the grader reads it and grades in Chinese, so that the results.json a
student reads speaks the edition's language (it packed the English notebooks only, and graded in
English whatever the edition)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from test_grade import MASKS
from test_trial37_feedback import POLARITY, ZH_REREAD

ROOT = Path(__file__).resolve().parents[2]
ZH = ROOT / "zh-CN"


def bundle():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gradescope
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return gradescope


def test_the_chinese_bundle_holds_the_chinese_notebook(tmp_path):
    made = bundle().build(MASKS, tmp_path / "dist", "zh-CN")
    with zipfile.ZipFile(made) as zf:
        names = set(zf.namelist())
        notebook = f"notebooks/{MASKS}/{MASKS}.ipynb"
        assert zf.read(notebook) == (ZH / notebook).read_bytes()
        assert not any(n.startswith(("zh-CN/", "solutions/")) for n in names), names
        assert "export AUTOGRADER_ROOT=" in (run := zf.read("run_autograder").decode())
        assert "AUTOGRADER_LANG=zh-CN" in run
        assert "pybabel compile" in zf.read("setup.sh").decode()  # the .mo is not in git
    english = bundle().build(MASKS, tmp_path / "en")
    with zipfile.ZipFile(english) as zf:
        notebook = f"notebooks/{MASKS}/{MASKS}.ipynb"
        assert zf.read(notebook) == (ROOT / notebook).read_bytes()
        assert "AUTOGRADER_LANG=en" in zf.read("run_autograder").decode()


def test_make_gradescope_takes_the_edition_as_the_other_targets_do():
    for lang, edition in [("zh-CN", "zh-CN"), ("zh_CN.UTF-8", "zh-CN"), ("C.UTF-8", "en")]:
        done = subprocess.run(
            ["make", "-n", "gradescope", f"ASSIGNMENT={MASKS}", f"LANG={lang}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert f"scripts/gradescope.py {MASKS} --lang {edition}" in done.stdout, done.stdout


def test_the_default_output_is_the_editions_grades_folder(tmp_path, monkeypatch):
    made = []
    script = bundle()
    monkeypatch.setattr(script, "build", lambda a, out, lang: made.append((out, lang)) or out)
    script.main([MASKS, "--lang", "zh-CN"])
    script.main([MASKS])
    assert made == [(ZH / "grades" / "gradescope", "zh-CN"), (ROOT / "grades" / "gradescope", "en")]


@pytest.mark.slow
def test_the_chinese_bundle_grades_in_chinese(tmp_path):
    made = bundle().build(MASKS, tmp_path / "dist", "zh-CN")
    root = tmp_path / "autograder"  # Gradescope's /autograder, replayed
    with zipfile.ZipFile(made) as zf:
        zf.extractall(root / "source")
    run = root / "source" / "run_autograder"
    run.chmod(0o755)
    (root / "submission").mkdir(parents=True)
    env = {"AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}

    def graded(notebook: bytes) -> dict:
        (root / "submission" / f"{MASKS}.ipynb").write_bytes(notebook)
        done = subprocess.run(
            [str(run)],
            env={**env, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},  # an English container
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads((root / "results" / "results.json").read_text())

    results = graded((ZH / "solutions" / MASKS / f"{MASKS}.ipynb").read_bytes())
    assert results["score"] == 8, results
    assert results["output"].startswith(f"你的笔记本：{MASKS}.ipynb。状态：已评分。"), results
    assert "问题 04.1（answer_04_1）" in [t["name"] for t in results["tests"]], results
    assert {t["status"] for t in results["tests"]} == {"passed"}  # Gradescope's ids
    # a named mistake: the section to re-read is the Chinese notebook's
    wrong = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(POLARITY)])
    tests = {t["name"]: t for t in graded(nbformat.writes(wrong).encode())["tests"]}
    assert ZH_REREAD in tests["masked_scores"]["output"], tests["masked_scores"]

"""Grading a class: parallel, isolated, read-only, reproducible."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import nbformat

from autograder.grade import grade_class

HOSTILE = Path(__file__).parent / "hostile"

CORRECT = """import torch
def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
def attention_scores(q, k):
    return torch.einsum('...qd,...kd->...qk', q, k)
"""
INVERTED = """import torch
def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).triu(1)
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
"""


def submit(root: Path, student: str, *sources: str, raw: str | None = None) -> Path:
    path = root / student / "04_softmax_masks" / "04_softmax_masks.ipynb"
    path.parent.mkdir(parents=True)
    if raw is not None:
        path.write_text(raw)
    else:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
        nbformat.write(nb, path)
    return path


def digest(root: Path) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()
    }


def read_grades(path: Path) -> dict[str, dict[str, str]]:
    with path.open() as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_a_class_with_hostile_and_broken_submissions_is_graded_fairly(tmp_path):
    root = tmp_path / "submitted"
    submit(root, "ada", CORRECT, "answer_04_1 = 21  # True entries of causal_mask(6)")
    submit(root, "bob", INVERTED, "answer_04_1 = 36")
    submit(root, "eve", (HOSTILE / "infinite_loop.py").read_text())
    submit(root, "mal", (HOSTILE / "exits_early.py").read_text())
    submit(root, "oom", (HOSTILE / "memory_bomb.py").read_text())
    submit(root, "zed", raw="{ not a notebook")
    before = digest(root)

    out = tmp_path / "grades.csv"
    table = grade_class(root, out, workers=2, time_limit=3.0)

    assert digest(root) == before  # submissions are never modified
    grades = read_grades(out)
    assert set(grades) == {"ada", "bob", "eve", "mal", "oom", "zed"}
    assert grades["ada"]["causal_mask"] == "1" and grades["ada"]["total"] == grades["ada"]["max"]
    assert grades["bob"]["causal_mask"] == "0" and grades["bob"]["attention_scores"] == "1"
    assert grades["ada"]["answer_04_1"] == "1" and grades["bob"]["answer_04_1"] == "0"
    assert grades["eve"]["causal_mask"] == "0" and grades["eve"]["attention_scores"] == "1"
    assert grades["mal"]["total"] == "0" and grades["oom"]["total"] == "0"
    assert grades["zed"]["total"] == "0"
    assert not table.all_passed()

    feedback = table.feedback_dir
    assert sorted(p.stem for p in feedback.glob("*.txt")) == sorted(grades)
    assert "PASS  causal_mask" in (feedback / "ada.txt").read_text()
    assert "Question 04.1: not quite" in (feedback / "bob.txt").read_text()
    assert "did not finish within 3 s" in (feedback / "eve.txt").read_text()
    assert "not valid JSON" in (feedback / "zed.txt").read_text()

    again = tmp_path / "again.csv"
    grade_class(root, again, workers=1, time_limit=3.0)
    assert again.read_text() == out.read_text()  # a re-run gives the same table

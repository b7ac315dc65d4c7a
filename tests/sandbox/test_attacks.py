"""The attacks of issue 8, each tried against the sandbox, each gaining nothing.

Every hostile file in tests/sandbox/hostile/ is judged as a learner's submission; each test
asserts that it
scores no points, that no file outside the sandbox changed (the checkout, a victim folder, other
students' notebooks: checksummed before and after), that no process it started is left, and that
grading finishes within its limits. Most attacks first switch the grader's own audit hook off (a
learner's code can always reach the Python objects around it), so that only the operating system's
sandbox stands in their way.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.core.judge import judge_source
from autograder.sandbox.host import pool, submission
from tests.sandbox.marks import NEEDS_BWRAP

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"

pytestmark = NEEDS_BWRAP


def digest(*folders: Path) -> str:
    """A checksum of every file (name, mode and content) under ``folders``."""
    h = hashlib.sha256()
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if ".git" in p.parts or "__pycache__" in p.parts or ".pytest_cache" in p.parts:
                continue
            if p.is_file() and not p.is_symlink():
                h.update(str(p).encode() + oct(p.stat().st_mode).encode() + p.read_bytes())
    return h.hexdigest()


def judge_hostile(name: str, only=None, time_limit=None, **values) -> tuple[dict, float]:
    """Judge tests/sandbox/hostile/<name>, its ``__KEY__`` placeholders filled from ``values``."""
    source = (HOSTILE / name).read_text()
    for key, value in values.items():
        source = source.replace(f"__{key.upper()}__", str(value))
    start = time.monotonic()
    results = judge_source(source, only, label=name, time_limit=time_limit)
    return {r.exercise: r for r in results}, time.monotonic() - start


def processes_running(token: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if token.encode() in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" "):
                found.append(int(pid))
        except OSError:
            pass
    return found


def wait_until_gone(token: str, seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := processes_running(token)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.fixture
def victim(tmp_path):
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "notebook.ipynb").write_text('{"cells": []}')
    return folder


def test_cloning_the_reference_is_impossible_it_is_not_in_the_sandbox():
    results, _ = judge_hostile("clones_reference.py")
    for name in ("causal_mask", "attention_scores", "softmax"):
        assert results[name].points == 0 and not results[name].passed
        assert "__code__" in results[name].message  # a stand-in has no code to clone


def test_meta_tensors_score_nothing_and_never_crash_the_judge(tmp_path):
    results, _ = judge_hostile("meta_tensors.py")
    assert set(results) == {
        "project_qkv",
        "attention_scores",
        "scaled_attention_scores",
        "softmax",
        "causal_mask",
    }
    for r in results.values():
        assert r.points == 0 and not r.passed, r
    assert any("'meta' device" in r.message for r in results.values())
    path = tmp_path / "meta.py"
    path.write_text((HOSTILE / "meta_tensors.py").read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "check", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["score"] == 0


@pytest.mark.parametrize("name", ["clears_evidence.py", "replaces_torch_save.py"])
def test_erasing_the_evidence_of_a_forbidden_call_changes_nothing(name):
    results, _ = judge_hostile(name)
    assert results["softmax"].points == 0 and not results["softmax"].passed
    if name == "clears_evidence.py":  # the call was reported before the evidence was cleared
        assert results["softmax"].mistake == "uses-builtin", results["softmax"]


def test_writes_outside_the_sandbox_all_fail_with_the_audit_hook_off(victim):
    before = digest(ROOT / "autograder", ROOT / "course_lib", victim)
    results, _ = judge_hostile("writes_outside.py", root=ROOT, victim=victim)
    r = results["causal_mask"]
    assert not r.passed
    assert "succeeded: []" in r.message, r.message
    assert digest(ROOT / "autograder", ROOT / "course_lib", victim) == before


def test_the_reference_the_checks_and_the_judge_cannot_be_read():
    # the files it goes for exist here: what it cannot do, it cannot do in the sandbox only
    targets = ("course_lib/masks.py", "autograder/lessons/04_softmax_masks/checks.py", "solutions")
    assert all((ROOT / t).exists() for t in targets)
    results, _ = judge_hostile("reads_hidden.py", root=ROOT, judge=os.getpid())
    r = results["causal_mask"]
    assert not r.passed
    assert "succeeded: []" in r.message, r.message
    assert "pytest" not in r.message  # no process outside the sandbox is visible


def test_learner_code_runs_as_nobody_without_network_or_inherited_files():
    source = (
        "import os, socket, torch\n"
        "def interfaces():\n"
        "    try:\n"
        "        return [name for _, name in socket.if_nameindex()]\n"
        "    except OSError:  # it opens a socket: the seccomp filter refuses any\n"
        "        return 'no socket'\n"
        "def attention_scores(q, k):\n"
        "    facts = [os.getuid(), os.getgid(), sorted(os.listdir('/proc/self/fd')),\n"
        f"             os.path.exists({str(ROOT)!r}), interfaces()]\n"
        "    raise RuntimeError(f'facts: {facts}')\n"
    )
    [r] = judge_source(source)
    facts = r.message.split("facts: ", 1)[1].splitlines()[0]
    uid, gid, fds, checkout_visible, interfaces = eval(facts)  # noqa: S307 (our own message)
    assert (uid, gid) == (65534, 65534)
    assert len(fds) <= 5  # stdin, stdout, stderr, the channel (and listdir's own)
    assert not checkout_visible
    assert interfaces in ([], ["lo"], "no socket")


def test_renaming_classmates_notebooks_in_grade_changes_nothing(tmp_path):
    from autograder.grade.grading import grade_class

    good = (ROOT / "solutions" / "04_softmax_masks" / "04_softmax_masks.ipynb").read_text()
    submissions = tmp_path / "submitted"
    for student in ("alice", "bob"):
        folder = submissions / student / "04_softmax_masks"
        folder.mkdir(parents=True)
        (folder / "04_softmax_masks.ipynb").write_text(good)
    hostile = (HOSTILE / "renames_classmates.py").read_text()
    hostile = hostile.replace("__SUBMISSIONS__", str(submissions))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(hostile)]
    (submissions / "mallory" / "04_softmax_masks").mkdir(parents=True)
    nbformat.write(nb, submissions / "mallory" / "04_softmax_masks" / "mallory.ipynb")
    before = digest(submissions)
    table = grade_class(submissions, tmp_path / "grades.csv", workers=2)
    assert digest(submissions) == before
    rows = {g.student: g for g in table.rows}
    for student in ("alice", "bob"):
        assert rows[student].error is None
        assert all(r.passed for r in rows[student].results), rows[student].results


def test_a_detached_process_does_not_outlive_grading():
    results, elapsed = judge_hostile("detaches.py")
    assert results["causal_mask"].points in (0, results["causal_mask"].max_points)
    assert wait_until_gone("sleep 987.654") == []


def test_a_fork_bomb_stops_at_the_process_limit_and_leaves_nothing():
    results, elapsed = judge_hostile("fork_bomb.py", time_limit=5.0)
    r = results["causal_mask"]
    assert not r.passed
    started = int(r.message.split("started ", 1)[1].split()[0])
    assert started < 100  # the limit is 64 processes and threads per sandbox
    assert results["attention_scores"].passed  # the rest is graded
    assert wait_until_gone("sleep 31.4159") == []


def test_a_length_prefix_on_the_channel_cannot_hang_the_judge(short_backstop):
    short_backstop("causal_mask")  # it hangs: stopped by the wall-clock backstop, 3 s here
    results, elapsed = judge_hostile("hangs_judge.py", time_limit=1.0)
    assert results["causal_mask"].mistake == "timeout", results["causal_mask"]
    assert results["softmax"].mistake == "tampering"  # a message of 4 GiB is refused at once
    assert results["attention_scores"].passed  # and the rest is graded
    assert elapsed < 3 * submission.wall_backstop(1.0) + 30


def test_a_kept_sandbox_starts_each_submission_clean():
    """``isolated(fresh=False)``: one sandbox for one submission after another, reset between."""
    first = (HOSTILE / "detaches.py").read_text() + (
        "\nleft = open('left-behind.txt', 'w').write('for the next one')\n"
    )
    second = (
        "import os\n"
        "def attention_scores(q, k):\n"
        "    cmdlines = [open(f'/proc/{p}/cmdline', 'rb').read() for p in os.listdir('/proc')\n"
        "                if p.isdigit()]\n"
        "    found = [n for _, _, names in os.walk('/tmp') for n in names if 'left' in n]\n"
        "    raise RuntimeError(f'found {found} {[c for c in cmdlines if b\"987\" in c]}')\n"
    )
    with pool.isolated(fresh=False) as kept:
        judge_source(first)
    with pool.isolated(fresh=False) as again:
        [r] = judge_source(second)
    assert again is kept
    assert "found [] []" in r.message, r.message
    assert wait_until_gone("sleep 987.654") == []

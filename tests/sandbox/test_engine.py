"""The grading engine: the contract's CLI, extraction, isolation, and hostile submissions.

Every hostile submission in tests/sandbox/hostile/ must fail cleanly, within its time limit, without
touching the grader, the reference, or another student's grade.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from autograder.core.assignment import assignment
from autograder.core.extract import from_file
from autograder.core.judge import judge_code, judge_file, judge_source

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"

GOOD = """
import torch


def causal_mask(seq_len, device=None):
    i = torch.arange(seq_len, device=device)
    return i[None, :] <= i[:, None]


def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
"""

WRONG = """
import torch


def causal_mask(seq_len, device=None):
    i = torch.arange(seq_len, device=device)
    return i[None, :] >= i[:, None]  # the upper triangle: sees the future
"""


def run_cli(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def tree_digest(*folders: Path) -> str:
    h = hashlib.sha256()
    for folder in folders:
        for p in sorted(folder.rglob("*.py")):
            h.update(str(p).encode() + p.read_bytes())
    return h.hexdigest()


def by_name(results):
    return {r.exercise: r for r in results}


# -- the command line of the contract ----------------------------------------------------------
def test_check_passes_a_correct_file_and_exits_0(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(GOOD)
    proc = run_cli("check", f)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS  causal_mask" in proc.stdout and "PASS  attention_scores" in proc.stdout


def test_check_json_follows_the_contract_schema_and_names_the_mistake(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(WRONG)
    proc = run_cli("check", f, "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert set(report) == {"file", "score", "max_score", "results"}
    assert report["file"] == str(f) and report["score"] == 0.0 and report["max_score"] > 0
    [result] = report["results"]
    assert set(result) == {"exercise", "passed", "points", "max_points", "message", "mistake"}
    assert result["exercise"] == "causal_mask" and result["passed"] is False
    assert isinstance(result["message"], str) and result["message"]
    assert result["mistake"] is not None


def test_only_grades_just_the_named_exercises(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(GOOD)
    report = json.loads(run_cli("check", f, "--only", "attention_scores", "--json").stdout)
    assert [r["exercise"] for r in report["results"]] == ["attention_scores"]


def test_a_lesson_notebook_is_graded_on_its_own_lessons_exercises(tmp_path):
    """A lesson's tools cell carries the learner's earlier functions: ``check`` of the notebook
    grades the lesson's assignment (its exercises and questions, what it lacks a 0, as ``grade``
    does) and says which functions it left to their own lessons."""
    nb = notebook(GOOD)
    lesson = (
        tmp_path / "04_softmax_masks.ipynb"
    )  # causal_mask is lesson 04's, attention_scores 02's
    nbformat.write(nb, lesson)
    report = json.loads(run_cli("check", lesson, "--json").stdout)
    rows = {r["exercise"]: r for r in report["results"]}
    work = assignment("04")
    assert list(rows) == work.items and report["max_score"] == work.max_points
    assert rows["causal_mask"]["passed"] and report["score"] == rows["causal_mask"]["points"]
    proc = run_cli("check", lesson)
    assert proc.returncode == 1 and "attention_scores" not in proc.stdout.split("Score:")[0]
    assert "Not graded here: attention_scores" in proc.stdout and "--only" in proc.stdout
    asked = json.loads(run_cli("check", lesson, "--only", "attention_scores", "--json").stdout)
    assert [r["exercise"] for r in asked["results"]] == ["attention_scores"]
    other = tmp_path / "mine.ipynb"  # not a lesson's notebook: everything it defines
    nbformat.write(nb, other)
    report = json.loads(run_cli("check", other, "--json").stdout)
    assert [r["exercise"] for r in report["results"]] == ["attention_scores", "causal_mask"]


@pytest.mark.parametrize(
    "name, content, says",
    [
        ("broken.ipynb", '{"cells": [', "not valid JSON"),
        ("empty.py", "", "empty"),
        ("empty.ipynb", "   \n", "empty"),
        ("syntax.py", "def causal_mask(L:\n    return", "syntax error"),
        ("nothing.py", "x = 1\n", "no exercise found"),
        ("notes.txt", "def causal_mask(L): pass", "expected a .py file or an .ipynb"),
    ],
)
def test_malformed_input_exits_2_with_a_clear_message(tmp_path, name, content, says):
    f = tmp_path / name
    f.write_text(content)
    proc = run_cli("check", f)
    assert proc.returncode == 2
    assert says in proc.stderr


def test_bad_arguments_exit_2(tmp_path):
    assert run_cli("check").returncode == 2
    assert run_cli("check", tmp_path / "missing.py").returncode == 2
    f = tmp_path / "mine.py"
    f.write_text(GOOD)
    proc = run_cli("check", f, "--only", "no_such_exercise")
    assert proc.returncode == 2 and "no exercise named no_such_exercise" in proc.stderr


# -- extraction from notebooks -----------------------------------------------------------------
def notebook(*cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) if isinstance(c, str) else c for c in cells]
    return nb


def test_notebook_cells_moved_duplicated_and_stripped_of_metadata_still_grade(tmp_path):
    good_mask = (
        "import torch\ndef causal_mask(seq_len, device=None):\n"
        "    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()"
    )
    nb = notebook(
        "def attention_scores(q, k):\n    return q @ k.transpose(-2, -1)",  # before its import
        "from autograder.notebook import check\ncheck(attention_scores)",
        "def causal_mask(seq_len, device=None):\n    raise NotImplementedError()",  # old copy
        "%matplotlib inline\nimport torch",
        good_mask,  # the later definition wins, as in a kernel
        nbformat.v4.new_markdown_cell("## Notes"),
    )
    for cell in nb.cells:
        cell.metadata = {}
    path = tmp_path / "moved.ipynb"
    nbformat.write(nb, path)
    results = by_name(judge_file(path))
    assert results["causal_mask"].passed, results["causal_mask"].message
    assert results["attention_scores"].passed, results["attention_scores"].message


def test_a_cell_that_raises_is_reported_and_the_rest_still_graded(tmp_path):
    nb = notebook(
        "import torch",
        "undefined_helper()\nx = 1 / 0",
        "def attention_scores(q, k):\n    return q @ k.transpose(-2, -1)",
        "def causal_mask(seq_len, device=None)\n    return None",  # a syntax error
    )
    path = tmp_path / "partial.ipynb"
    nbformat.write(nb, path)
    code = from_file(path)
    assert any("syntax error" in p for p in code.problems)
    results = by_name(judge_code(code))
    assert results["attention_scores"].passed
    assert "causal_mask" not in results  # it never parsed, so it is not defined


# -- isolation: hostile submissions ------------------------------------------------------------
def hostile(name, only=None, **options):
    return by_name(judge_file(HOSTILE / name, only, **options))


def test_patching_torch_in_the_sandbox_does_not_reach_the_judge():
    results = hostile("patches_torch.py")
    assert not results["causal_mask"].passed


def test_an_infinite_loop_fails_within_its_time_limit_and_the_rest_is_graded():
    # stopped by its CPU limit (a wall-clock bound here would fail on a busy machine)
    results = hostile("infinite_loop.py", time_limit=2.0)
    assert results["causal_mask"].mistake == "timeout"
    assert results["attention_scores"].passed  # a fresh sandbox after the timeout


def test_a_memory_bomb_fails_as_out_of_memory_and_the_rest_is_graded():
    results = hostile("memory_bomb.py")
    assert results["causal_mask"].mistake == "out-of-memory"
    assert results["attention_scores"].mistake == "out-of-memory"


def test_the_failure_says_which_limit_was_hit(short_backstop):
    from autograder.core.registry import Gradable
    from autograder.sandbox.host.replies import LearnerTimeout
    from autograder.sandbox.host.submission import Submission, wall_backstop
    from autograder.sandbox.protocol import ErrorKind

    short_backstop("nap")  # it sleeps: stopped by the wall-clock backstop, 3 s here
    source = "import time\ndef spin():\n    while True: pass\ndef nap():\n    time.sleep(3600)\n"
    with Submission([("limits.py", source)], {}) as sub:
        sub.begin(Gradable("spin", "00", lambda s: None, time_limit=1.0))
        with pytest.raises(LearnerTimeout) as spun:
            sub.call("spin")
        assert spun.value.limit is ErrorKind.CPU_TIME and "1 s of CPU time" in str(spun.value)
        sub.begin(Gradable("nap", "00", lambda s: None, time_limit=0.5))
        start = time.monotonic()
        with pytest.raises(LearnerTimeout) as slept:
            sub.call("nap")
        assert slept.value.limit is ErrorKind.WALL_CLOCK and "wall-clock" in str(slept.value)
        assert time.monotonic() - start < wall_backstop(0.5) + 10
        sub.begin(Gradable("spin", "00", lambda s: None, time_limit=1.0))  # the code is still there
        assert sub.defines("nap")


@pytest.mark.slow
def test_grading_on_a_busy_machine_gives_the_same_results_as_on_an_idle_one():
    """Limits count CPU time: 4 busy loops competing for the cores change no result."""
    cases = [
        (GOOD, None),
        (WRONG, None),
        ((HOSTILE / "infinite_loop.py").read_text(), 1.0),
        ((HOSTILE / "memory_bomb.py").read_text(), None),
    ]

    def grade_all():
        return [
            [(r.exercise, r.passed, r.points, r.mistake) for r in judge_source(src, time_limit=t)]
            for src, t in cases
        ]

    idle = grade_all()
    spin = "import time\nend = time.monotonic() + 300\nwhile time.monotonic() < end: pass"
    hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(4)]
    try:
        busy = grade_all()
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert busy == idle
    assert idle[0] == [("attention_scores", True, 1, None), ("causal_mask", True, 1, None)]


def test_without_bubblewrap_check_still_works_and_says_so_but_grade_refuses(monkeypatch, capsys):
    from autograder.sandbox.host import bwrap
    from autograder.sandbox.host.pool import close_kept, isolated
    from autograder.sandbox.host.server import SandboxUnavailable
    from autograder.sandbox.host.submission import Submission

    monkeypatch.setitem(bwrap._probe, "strong", False)
    monkeypatch.setitem(bwrap._probe, "why", "bubblewrap (bwrap) is not installed")
    monkeypatch.setattr(bwrap, "_noted", False)
    close_kept()  # sandboxes an earlier test in this process started ahead (in bubblewrap)
    folders = set(glob.glob(os.path.join(tempfile.gettempdir(), "submission-*")))
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        with isolated():
            pass
    with isolated(allow_weak=True) as server:  # the instructor accepted the risk
        assert not server.strong
        helpers = "from course_lib.data import toy_sentence\nwords, x = toy_sentence()\n"
        with Submission([("setup", helpers)], {}) as sub:
            assert sub.problems == []  # a lesson's set-up cell still runs
        results = by_name(judge_source(GOOD))
        meta = "import torch\ndef causal_mask(n, device=None):\n"
        meta += "    return torch.empty(n, n, device='meta')"
        [fake] = judge_source(meta)
        # the learner processes' folders are the host's /tmp here (no tmpfs): gone with them
        left = set(glob.glob(os.path.join(tempfile.gettempdir(), "submission-*"))) - folders
        assert not left
    assert results["causal_mask"].passed and results["attention_scores"].passed
    assert not fake.passed and "'meta' device" in fake.message
    assert capsys.readouterr().err.count("process only") == 1  # said once


def test_an_exercise_may_have_a_longer_time_limit_than_loading():
    from autograder.core.registry import Gradable
    from autograder.sandbox.host.submission import Submission

    with Submission([("long.py", GOOD)], {}, load_timeout=5.0) as sub:
        sub.begin(Gradable("causal_mask", "04", lambda s: None, time_limit=40.0))
        assert sub.call("causal_mask", 2).tolist() == [[True, False], [True, True]]


COMPILED = """
import torch


def _causal_mask(seq_len, device=None):
    i = torch.arange(seq_len, device=device)
    return i[None, :] <= i[:, None]


causal_mask = torch.compile(_causal_mask)


@torch.compile(fullgraph=True, mode="max-autotune")
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
"""


def test_torch_compile_grades_the_code_as_written():
    """torch.compile's compilers need threads, a C compiler and a cache folder, none of which the
    sandbox gives: compiled code is graded as written (it was refused as tampering)."""
    right = by_name(judge_source(COMPILED))
    assert right["causal_mask"].passed and right["attention_scores"].passed
    wrong = by_name(judge_source(COMPILED.replace("k.transpose(-2, -1)", "k")))
    assert wrong["attention_scores"].mistake == "forgot-transpose-k"


NO_DYNAMO = """
import sys
import torch


def causal_mask(seq_len, device=None):
    torch.ones(2, 2, device="meta").softmax(-1) @ torch.ones(2, 2, device="meta")
    return "torch._dynamo" in sys.modules


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(5, 5)

    def forward(self, tokens):
        return self.emb(tokens)
"""


def test_no_learner_process_loads_dynamo():
    """Nothing compiles in the sandbox, so nothing there loads Dynamo, which cost each exercise
    process 1.2 CPU-s where the server did not load it first: not the watch, not a 'meta'
    kernel, not the deterministic mode, not the optimizer of the training helper."""
    import torch

    from autograder.core.registry import Gradable
    from autograder.sandbox.host.submission import Submission

    with Submission([("no_dynamo.py", NO_DYNAMO)], {}) as sub:
        sub.begin(Gradable("causal_mask", "04", lambda s: None))
        assert sub.call("causal_mask", 2) is False
        losses = sub.new("Tiny").apply("fit", torch.randint(5, (2, 4)), 3, 1e-1)
        assert losses[-1] < losses[0]  # it trained
        assert sub.call("causal_mask", 2) is False


def test_grading_is_reproducible_across_sandboxes():
    """Every exercise starts from the same random state, whichever sandbox runs it."""
    from autograder.sandbox.host import pool

    src = "import torch\ndef attention_scores(q, k):\n    raise ValueError(str(torch.rand(3)))\n"
    messages = [judge_source(src)[0].message]  # this process's sandbox, used by earlier tests
    with pool.isolated(allow_weak=True):  # and a new one
        messages.append(judge_source(src)[0].message)
    assert messages[0] == messages[1] and "tensor(" in messages[0]


def test_exiting_early_is_a_failure_not_a_success():
    results = hostile("exits_early.py")
    assert results["causal_mask"].mistake == "crashed"
    assert "os._exit" in results["causal_mask"].message
    assert not results["attention_scores"].passed


def test_exiting_while_the_code_loads_fails_every_exercise_with_a_clear_message():
    src = GOOD + "\nanswer_04_1 = 21\nstop = __import__('os')._exit(0)\n"
    results = judge_source(src, questions=True)
    assert [r.exercise for r in results] == ["attention_scores", "causal_mask", "answer_04_1"]
    for r in results:
        assert not r.passed and r.mistake == "crashed"
        assert r.message.startswith("Loading your code failed: your code ended the process")


def test_a_printed_fake_report_is_not_mistaken_for_results():
    proc = run_cli("check", HOSTILE / "fake_report.py", "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)  # stdout is the grader's JSON alone
    assert report["score"] == 0.0 and not report["results"][0]["passed"]


def test_snooping_the_callers_frames_finds_no_expected_values():
    results = hostile("snoops_frames.py")
    assert not results["causal_mask"].passed


def test_rewriting_grader_or_reference_files_is_refused_and_nothing_changes():
    folders = (ROOT / "autograder", ROOT / "course_lib")
    before = tree_digest(*folders)
    results = hostile("rewrites_grader.py")
    assert not results["causal_mask"].passed
    assert "does not allow writing" in results["causal_mask"].message
    assert tree_digest(*folders) == before


ABSENT = "not available while your code is graded"


def test_the_reference_under_another_name_gets_no_points():
    results = hostile("uses_reference.py")
    for name in ("causal_mask", "padding_mask"):  # a stand-in: the reference is not there
        assert results[name].mistake == "uses-reference", results[name].message
    assert not results["attention_scores"].passed  # and there is no source to read


def test_importing_the_reference_by_alias_gets_no_points():
    results = hostile("imports_reference_by_alias.py", only=["causal_mask", "attention_scores"])
    assert results["causal_mask"].mistake == "uses-reference"
    assert results["attention_scores"].mistake == "uses-reference"


def test_the_reference_run_in_a_thread_of_ones_own_gets_no_points():
    results = hostile("uses_reference_in_a_thread.py")
    assert not results["causal_mask"].passed and results["causal_mask"].points == 0


def test_switching_off_the_watch_on_forbidden_calls_is_refused():
    results = hostile("disables_watch.py")
    assert not results["softmax"].passed
    assert "does not allow changing the profiler" in results["softmax"].message


def test_killing_the_sandbox_server_is_refused_and_grading_goes_on():
    results = hostile("kills_grader.py")
    assert not results["causal_mask"].passed
    assert by_name(judge_source(GOOD))["causal_mask"].passed


def test_an_imported_helper_is_not_taken_for_a_submitted_exercise(tmp_path):
    src = "from course_lib.projections import QKVProjection\n" + GOOD
    assert set(by_name(judge_source(src))) == {"causal_mask", "attention_scores"}


def test_learner_output_and_files_stay_in_a_private_working_directory():
    src = GOOD + "\nopen('scratch.txt', 'w').write('mine')\nprint('hello from the learner')\n"
    assert by_name(judge_source(src))["causal_mask"].passed
    assert not (ROOT / "scratch.txt").exists()


def test_the_sandbox_mounts_nothing_where_its_tmpfs_goes(monkeypatch):
    """A checkout (and its venv) may live under /tmp, where the sandbox's own tmpfs is mounted:
    nothing the sandbox needs is mounted there, or the tmpfs would hide it."""
    from autograder.sandbox.host import bwrap

    venv = "/tmp/a-checkout/.venv/lib/python3/site-packages"
    monkeypatch.setattr(bwrap, "_libraries", lambda: [venv])
    cmd = bwrap._bwrap_command("/usr/bin/python3", [venv], bwrap._strong_boot("pass"))
    mounted = [cmd[i + 2] for i, arg in enumerate(cmd) if arg == "--ro-bind"]
    assert venv in cmd and not [m for m in mounted if m == "/tmp" or m.startswith("/tmp/")]
    assert venv not in cmd[-1]  # the sandbox's sys.path names the packages where it sees them


def test_a_sandbox_started_ahead_lives_until_a_block_takes_it():
    """A sandbox dies with the *thread* that started it (bubblewrap's --die-with-parent is the
    kernel's parent-death signal): one started ahead in the background must still be alive when
    the next ``isolated`` block takes it, unused, and ``close_kept`` ends those never taken."""
    from autograder.sandbox.host import pool
    from autograder.sandbox.host.pool import close_kept, isolated
    from autograder.sandbox.host.submission import Submission

    close_kept()  # none left by an earlier test in this process (grade starts some ahead)
    pool.start_ahead(2, allow_weak=True)
    deadline = time.monotonic() + 300
    while len(pool._spares) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    first, second = list(pool._spares)
    assert first.wait_ready(300) and first.alive()
    with isolated(allow_weak=True) as server:
        assert server is first
        with Submission([("good.py", GOOD)], {}) as sub:
            assert "causal_mask" in sub.defined
    assert not first.alive()  # a fresh block's sandbox ends with it
    assert second.alive()
    close_kept()
    assert not second.alive() and not pool._spares


def test_start_ahead_returns_with_its_first_sandbox_launched():
    """``grade`` imports torch right after ``start_ahead``: loading torch's library holds the
    interpreter 0.2 s at a time, and the starter thread, which needs it to launch a sandbox,
    waited that long on an idle core. It now returns once the first one is launched."""
    from autograder.sandbox.host import pool

    pool.close_kept()
    try:
        pool.start_ahead(1, allow_weak=True)
        assert pool._spares, "start_ahead returned before its sandbox was launched"
        assert pool._spares[0].alive()
    finally:
        pool.close_kept()


def test_a_forbidden_aten_pattern_catches_ops_however_they_are_looked_up():
    """``aten.*attention*`` catches SDPA's math op called through torch.ops (autograd decomposes
    it before any dispatch mode sees it); ``aten.*`` refuses every tensor op and nothing else."""
    import torch

    from autograder.core.registry import Gradable
    from autograder.sandbox.host.replies import ForbiddenUsed
    from autograder.sandbox.host.submission import Submission

    source = (
        "import torch\n"
        "def f(q):\n"
        "    op = getattr(torch.ops.aten, '_scaled_dot_product_' + 'attention_math')\n"
        "    return op.default(q, q, q)[0]\n"
        "def g(n):\n    return 4 * n * n\n"
        "def h(n):\n    return int(torch.tensor(n) * n)\n"
    )
    forbid = {"f": ["aten.*attention*"], "g": ["aten.*"], "h": ["aten.*"]}
    with Submission([("ops.py", source)], forbid) as sub:
        sub.begin(Gradable("f", "00", lambda s: None))
        with pytest.raises(ForbiddenUsed) as used:
            sub.call("f", torch.ones(2, 3))
        assert used.value.what == ["aten._scaled_dot_product_attention_math"]
        sub.begin(Gradable("g", "00", lambda s: None))
        assert sub.call("g", 3) == 36
        sub.begin(Gradable("h", "00", lambda s: None))
        with pytest.raises(ForbiddenUsed):
            sub.call("h", 3)


def test_uninitialised_memory_reads_the_same_in_every_exercise_process():
    """torch.empty's memory is NaN in an exercise process (deterministic algorithms), not what a
    freed tensor left there: code that reads it fails the same way every run (trial 38's
    accumulator from torch.empty got three different messages in four runs)."""
    from autograder.core.registry import Gradable
    from autograder.sandbox.host.submission import Submission

    source = "import torch\ndef causal_mask(n, device=None):\n    return torch.empty(n, n)\n"
    with Submission([("empty.py", source)], {}) as sub:
        sub.begin(Gradable("causal_mask", "04", lambda s: None, time_limit=10.0))
        assert sub.call("causal_mask", 64).isnan().all()

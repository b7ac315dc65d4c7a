"""The attacks of issue 20 (sandbox, round 2), each tried and each gaining nothing.

No state shared between students (a minimal /dev, every writable place capped in bytes and inodes
and emptied before a kept sandbox is handed on, no System V IPC), no student costing another
their points, learner text on one line wherever it is shown, sleeping code not retried, BOM files
read as Python reads them, no host path inside, and a judge run as root from a private folder
that still runs the sandbox as ``nobody``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.check.report import human
from autograder.core.extract import from_file
from autograder.core.judge import judge_source
from autograder.sandbox.host import bwrap, pool
from autograder.sandbox.host.replies import LearnerTimeout
from autograder.sandbox.protocol import NOBODY, TMPFS, ErrorKind, one_line
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round10 import UNWATCH

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the judge must run as root")

GOOD_MASK = (
    "import torch\n"
    "def causal_mask(seq_len, device=None):\n"
    "    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()\n"
)


def probe(body: str, exercise: str = "softmax", signature: str = "(x, dim=-1)") -> str:
    """Learner code whose ``exercise`` runs ``body`` (the audit hook off: only the OS stands in
    its way), which appends to ``found`` what it should not have found (short: a message is
    shown up to 160 characters), and reports it in its error message."""
    lines = "".join(f"    {line}\n" for line in body.strip().splitlines())
    return (
        f"{UNWATCH}import json, os\n"
        f"def {exercise}{signature}:\n    _unwatch()\n    found = []\n{lines}"
        "    raise RuntimeError('FOUND ' + json.dumps(found))\n"
    )


def found_in(message: str) -> list:
    return json.loads(message.split("FOUND ", 1)[1].split("\n", 1)[0])


def look_inside(body: str) -> list:
    [r] = judge_source(probe(body), ["softmax"])
    assert "FOUND" in r.message, r.message
    return found_in(r.message)


# -- every writable place capped and private -----------------------------------------------------
@NEEDS_BWRAP
def test_dev_is_minimal_and_every_writable_place_is_capped_in_bytes_and_inodes():
    dev = ["fd", "full", "null", "random", "shm", "stderr", "stdin", "stdout", "urandom", "zero"]
    found = look_inside(
        f"""
if sorted(os.listdir("/dev")) != {dev!r}:
    found.append(",".join(sorted(os.listdir("/dev"))))
found += os.listdir("/dev/shm")
for place, (size, inodes) in {TMPFS!r}.items():
    st = os.statvfs(place)
    if (st.f_blocks * st.f_frsize, st.f_files) != (size, inodes):
        found.append(f"{{place}} {{st.f_blocks * st.f_frsize}} {{st.f_files}}")
try:
    open("/dev/evil", "w")
    found.append("/dev is writable")
except OSError:
    pass
"""
    )
    assert found == []


@NEEDS_BWRAP
def test_no_capability_no_system_v_ipc_and_no_hard_link_out_of_the_tmpfs():
    found = look_inside(
        """
import ctypes
status = open("/proc/self/status").read().splitlines()
found += [l for l in status if l.startswith("Cap") and int(l.split()[1], 16)]
libc = ctypes.CDLL(None, use_errno=True)
calls = {"shmget": (0, 2**20, 0o1600), "msgget": (0, 0o1600), "semget": (0, 1, 0o1600)}
for call, args in calls.items():
    got = getattr(libc, call)(*args)
    if (got, ctypes.get_errno()) != (-1, 1):  # EPERM, from the seccomp filter
        found.append(f"{call} {got} {ctypes.get_errno()}")
for target in ("/sandbox/autograder/sandbox/inside/zygote.py", "/usr/bin/env", "/dev/null"):
    try:
        os.link(target, "linked")
        found.append(target)
        os.remove("linked")
    except OSError:
        pass
"""
    )
    assert found == []


@NEEDS_BWRAP
def test_no_host_path_and_no_mount_list_are_visible_inside():
    found = look_inside(
        f"""
root = {str(ROOT)!r}
cmdline = open("/proc/1/cmdline", "rb").read().decode().split("\\0")
if "python" not in os.path.basename(cmdline[0]) or "serve(" not in cmdline[-2]:
    found.append("cmdline " + " ".join(cmdline[:4]))  # pid 1: the server (bwrap --as-pid-1)
found += [a[:40] for a in cmdline if "bind" in a or root in a]
try:
    if open("/proc/1/environ", "rb").read():
        found.append("environ")
except OSError:
    pass
for top, dirs, files in os.walk("/sandbox"):
    for name in files:  # (compiled files, *.pyc, name where they were compiled: not read here)
        path = os.path.join(top, name)
        try:
            with open(path, "rb") as f:
                if root.encode() in f.read(2**20):
                    found.append(path[-50:])
        except OSError:
            pass
    if top.count("/") >= 3:  # a packages' folder: its files and .dist-info, not the packages
        dirs[:] = [d for d in dirs if d.endswith(".dist-info")]
"""
    )
    assert found == []


# -- a kept sandbox is handed on only when clean ---------------------------------------------------
VICTIM_PROBE = probe(
    """
found += os.listdir("/dev/shm")
names = [n for _, ds, fs in os.walk("/tmp") for n in ds + fs]
found += [n for n in names if "note-from-a" in n or n.startswith("ballast")]
if len(names) > 50:  # its own working folder and matplotlib's cache, no more
    found.append(f"{len(names)} entries in /tmp")
found += [p for p in os.listdir("/proc") if p.isdigit()
          and b"31.4159" in open(f"/proc/{p}/cmdline", "rb").read()]
"""
)


def submit(root: Path, student: str, source: str) -> None:
    folder = root / student / "04_softmax_masks"
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    nbformat.write(nb, folder / "04_softmax_masks.ipynb")


@NEEDS_BWRAP
@pytest.mark.parametrize("attack", ["fills_and_leaves_notes.py", "fork_bomb.py", "thread_bomb.py"])
def test_the_next_student_in_a_kept_sandbox_sees_nothing_of_the_last_and_keeps_its_points(
    tmp_path, attack
):
    """``grade --workers 1``: student A's attack, then student B in the same kept sandbox."""
    from autograder.grade.grading import grade_class

    root = tmp_path / "submitted"
    submit(root, "a_attacker", (HOSTILE / attack).read_text())
    submit(root, "b_victim", GOOD_MASK + VICTIM_PROBE)
    table = grade_class(root, tmp_path / "grades.csv", workers=1, time_limit=5.0)
    rows = {g.student: g for g in table.rows}
    attacker = {r.exercise: r for r in rows["a_attacker"].results}
    victim = {r.exercise: r for r in rows["b_victim"].results}
    assert not attacker["causal_mask"].passed
    if attack == "fills_and_leaves_notes.py":
        made = attacker["causal_mask"].message.split("made ", 1)[1].split()
        assert int(made[0]) < TMPFS["/tmp"][1]  # the inode cap stopped it
        assert int(made[3]) <= TMPFS["/dev/shm"][0]  # the size cap stopped it
    assert victim["causal_mask"].passed, victim["causal_mask"]
    assert found_in(victim["softmax"].message) == []


@NEEDS_BWRAP
def test_a_kept_sandbox_that_does_not_reset_in_time_is_discarded(monkeypatch):
    with pool.isolated(fresh=False) as kept:
        [r] = judge_source(GOOD_MASK, ["causal_mask"])
    assert r.passed and kept.alive()
    monkeypatch.setattr(type(kept), "reset", lambda self, timeout: False)
    with pool.isolated(fresh=False) as again:
        [r] = judge_source(GOOD_MASK, ["causal_mask"])
    assert again is kept and r.passed
    assert not kept.alive() and kept not in pool._kept
    monkeypatch.undo()
    with pool.isolated(fresh=False) as fresh:
        [r] = judge_source(GOOD_MASK, ["causal_mask"])
    assert fresh is not kept and r.passed


# -- learner text on one line --------------------------------------------------------------------
@NEEDS_BWRAP
def test_a_forged_type_name_message_or_traceback_adds_no_line_to_the_report():
    results = judge_source((HOSTILE / "forges_lines.py").read_text())
    by_name = {r.exercise: r for r in results}
    for name in ("causal_mask", "softmax", "padding_mask"):
        assert not by_name[name].passed
    for name in ("causal_mask", "softmax"):  # shown, escaped, on one line
        assert "\\n  PASS" in by_name[name].message, by_name[name].message
    # a traceback keeps only lines in the sandbox's own frame format: the forged ones are dropped
    assert by_name["padding_mask"].message.splitlines()[-1].startswith("  solution.py, line ")
    report = human("forges_lines.py", results).splitlines()
    assert [line for line in report if line.lstrip().startswith("PASS")] == []
    assert [line for line in report if line.startswith("Score:")] == [report[-1]]
    assert not any("\x1b" in line for line in report)


def test_one_line_escapes_every_line_break_and_control_character():
    text = "a\nb\r\x1b[2K\u2028c\u202ed\td"
    shown = one_line(text)
    assert "\n" not in shown and "\x1b" not in shown and "\u2028" not in shown
    assert shown == "a\\nb\\r\\x1b[2K\\u2028c\\u202ed\\td"
    assert one_line("x" * 10, limit=4) == "xxxx"


# -- sleeping code is not retried ----------------------------------------------------------------
@NEEDS_BWRAP
def test_code_that_sleeps_is_stopped_once_not_retried(short_backstop):
    short_backstop("causal_mask")  # it sleeps: stopped by the wall-clock backstop, 3 s here
    source = (HOSTILE / "sleeps.py").read_text()
    only = ["causal_mask", "scaled_dot_product_attention"]
    by_name = {r.exercise: r for r in judge_source(source, only, time_limit=1.0)}
    assert by_name["causal_mask"].mistake == "timeout", by_name["causal_mask"]
    assert "ran 1 time(s)" in by_name["scaled_dot_product_attention"].message


def test_only_a_limit_a_busy_machine_could_cause_is_retried():
    wall = ErrorKind.WALL_CLOCK
    assert LearnerTimeout("", ErrorKind.CPU_TIME).busy_machine(1.0)
    assert LearnerTimeout("", wall, 14, cpu=0.9).busy_machine(1.0)
    assert not LearnerTimeout("", wall, 14, cpu=0.01).busy_machine(1.0)
    assert not LearnerTimeout("", wall, 14).busy_machine(1.0)  # unknown: a sleeper, most likely


# -- files as Python reads them ------------------------------------------------------------------
def test_a_byte_order_mark_is_read_as_python_reads_it(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD_MASK.encode())
    code = from_file(path)
    assert "causal_mask" in code.defined and not code.problems


def test_a_null_byte_is_refused_with_its_line(tmp_path):
    path = tmp_path / "nul.py"
    path.write_bytes(b"x = 1\n\ny = 2\x00\n")
    code = from_file(path)
    assert any("null byte on line 3" in p for p in code.problems), code.problems


# -- run as root from a private folder -----------------------------------------------------------
@NEEDS_BWRAP
@as_root
def test_as_root_a_private_folder_is_staged_where_nobody_reaches_it(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "inside").mkdir()
    (private / "inside" / "f.txt").write_text("readable from its staging folder")
    os.chmod(private / "inside", 0o755)
    os.chmod(private / "inside" / "f.txt", 0o644)
    args = bwrap._ro_bind(str(private / "inside"), "/mnt")
    assert str(private) not in args  # a public staging folder, bound in the sandbox's namespace
    cmd = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", *args, "--", "cat", "/mnt/f.txt"]
    argv, fds, user = bwrap.launch(cmd, NOBODY)
    try:
        out = subprocess.run(
            argv, pass_fds=fds, capture_output=True, timeout=60, **bwrap.LAUNCH,
            **bwrap._as_user(user),
        )  # fmt: skip
    finally:
        for fd in fds:
            os.close(fd)
    assert out.stdout == b"readable from its staging folder", out.stderr


@as_root
def test_as_root_files_nobody_cannot_read_are_refused_with_the_cause(tmp_path, monkeypatch):
    private = tmp_path / "venv-made-with-umask-077"
    private.mkdir(mode=0o700)
    monkeypatch.setattr(bwrap, "_libraries", lambda: [str(private)])
    with pytest.raises(bwrap.NotReadable, match=r"nobody.*chmod -R o\+rX"):
        bwrap._interpreter()
    # grade says so (not "install bubblewrap"), and grades nothing
    from autograder.grade.grading import grade_class
    from autograder.grade.results import GradeError

    monkeypatch.setattr(bwrap, "_probe", {})  # probe again, with the private folder
    with pytest.raises(GradeError, match=r"cannot read .*venv-made-with-umask-077.*chmod -R o\+rX"):
        grade_class(tmp_path / "submitted", tmp_path / "grades.csv")
    assert not (tmp_path / "grades.csv").exists()


@NEEDS_BWRAP
@as_root
def test_as_root_the_sandbox_runs_as_nobody_on_the_host():
    server = pool.isolated  # the kept one of this thread, started as the judge starts it
    with server(fresh=True) as s:
        assert s.wait_ready(300)
        assert os.stat(f"/proc/{s._proc.pid}").st_uid == NOBODY


def test_a_returned_string_is_one_line_and_an_answer_keeps_its_meaning():
    from autograder.sandbox.host.replies import from_plain

    assert from_plain("B\n", {"cpu"}) == "B"
    assert from_plain("plain text", {"cpu"}) == "plain text"
    assert from_plain({"k\nPASS": "a\nb"}, {"cpu"}) == {"k\\nPASS": "a\\nb"}

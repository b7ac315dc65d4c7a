"""The warm grader (autograder/service/): one per user, private, restarted on change, and never a
different answer from grading in the caller's own process.

Each test runs its grader in a runtime folder of its own (``AUTOGRADER_RUNTIME_DIR``) and stops
it at the end.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autograder.service import client, runtime

ROOT = Path(__file__).resolve().parents[2]
# A lesson's slice of a correct style, two wrong ones, a lesson notebook (graded on its lesson's
# exercises), and a file with nothing to grade (exit status 2, a message on stderr).
CASES = [
    [
        "check",
        "tests/lessons/04_softmax_masks/correct/idioms.py",
        "--only",
        "causal_mask",
        "softmax",
    ],
    ["check", "tests/lessons/05_attention/wrong/additive-mask-wrong-sign.py", "--json"],
    [
        "check",
        "tests/lessons/05_attention/wrong/additive-mask-as-bool.py",
        "--only",
        "causal_mask",
        "--json",
    ],
    ["check", "solutions/04_softmax_masks/04_softmax_masks.ipynb", "--json"],
    ["check", "tests/lessons/04_softmax_masks/correct/idioms.py", "--only", "no_such_exercise"],
]


def cli(args: list[str], env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *extra, "-m", "autograder", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=600,
    )


_direct: dict[tuple[str, ...], subprocess.CompletedProcess] = {}


def direct(args: list[str], warm: dict) -> subprocess.CompletedProcess:
    """``args`` graded in a fresh process of its own (the direct path, ``AUTOGRADER_DAEMON=0``),
    once per module: the tests that compare the warm grader's answers with it share it."""
    if tuple(args) not in _direct:
        _direct[tuple(args)] = cli(args, {**warm, "AUTOGRADER_DAEMON": "0"})
    return _direct[tuple(args)]


def start(env: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "autograder.service", "start"], env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    return status(env)


def status(env: dict) -> dict | None:
    done = subprocess.run(
        [sys.executable, "-m", "autograder.service", "status", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    import json

    return json.loads(done.stdout)


def stop(env: dict) -> None:
    subprocess.run([sys.executable, "-m", "autograder.service", "stop"], env=env)


def gone(pid: int, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


def private_dir(tmp_path_factory) -> Path:
    folder = Path(os.path.realpath(tmp_path_factory.mktemp("rt")))
    folder.chmod(0o700)
    return folder


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A grader of this module's own, started and warm; the environment that reaches it."""
    env = {
        **os.environ,
        runtime.ENV_DIR: str(private_dir(tmp_path_factory)),
        "AUTOGRADER_DAEMON": "1",
        "AUTOGRADER_DAEMON_WORKERS": "2",
    }
    start(env)
    cli(CASES[2], env)  # the first request waits for the worker to be warm
    yield env
    stop(env)


# The tests that ask the module's `warm` grader: one xdist group, so that under `make test`
# (`-n 2`) one worker starts it, not each worker that runs one of them.
WARM = pytest.mark.xdist_group("service-warm")


@pytest.fixture
def own_grader(tmp_path_factory, monkeypatch):
    """A runtime folder of the test's own, for the client in this process; stopped after."""
    folder = private_dir(tmp_path_factory)
    monkeypatch.setenv(runtime.ENV_DIR, str(folder))
    monkeypatch.setenv("AUTOGRADER_DAEMON", "1")
    monkeypatch.setattr(client, "_failed", None)
    yield folder
    client.control("stop")


@pytest.mark.slow  # grades in a fresh process too (the direct path), for comparison
@pytest.mark.parametrize("args", CASES, ids=[" ".join(a[1:]) for a in CASES])
@WARM
def test_warm_check_is_byte_identical_to_the_direct_path(warm, args):
    ours = cli(args, warm)
    alone = direct(args, warm)
    assert (ours.returncode, ours.stdout, ours.stderr) == (
        alone.returncode,
        alone.stdout,
        alone.stderr,
    )


@pytest.mark.slow  # grades in a fresh process too (the direct path), for comparison
@WARM
def test_concurrent_clients_each_get_their_own_answer(warm):
    expected = {i: direct(CASES[i], warm).stdout for i in (0, 1, 2)}
    got: dict[int, list[bytes]] = {i: [] for i in expected}

    def ask(i: int) -> None:
        got[i].append(cli(CASES[i], warm).stdout)

    threads = [threading.Thread(target=ask, args=(i % 3,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(answers == [expected[i]] * 2 for i, answers in got.items())
    assert status(warm)["workers"] <= 2


@WARM
def test_the_warm_command_line_imports_no_torch(warm):
    done = cli(CASES[2], warm, "-X", "importtime")
    assert done.returncode == 1  # the file is wrong: graded, by the warm grader
    imported = [line.split("|")[-1].strip() for line in done.stderr.decode().splitlines()]
    assert "autograder.service.client" in imported
    assert not [m for m in imported if m.split(".")[0] in ("torch", "numpy")]


@pytest.mark.slow  # grades in a fresh process too (the direct path), for comparison
@WARM
def test_drill_check_and_progress_go_through_the_grader_and_say_the_same(warm, tmp_path):
    drills = {**warm, "ATTENTION_DRILL_HOME": str(tmp_path / "home")}
    started = cli(["drill", "start", "causal_mask", "--dir", str(tmp_path)], drills)
    assert started.returncode == 0, started.stderr
    path = str(next(tmp_path.glob("drill_*.py")))
    ours = cli(["drill", "check", path], drills)
    direct = cli(["drill", "check", path, "--no-daemon"], drills)
    assert ours.returncode == direct.returncode == 1
    # the same report; the last line says how long since `start` (later for the second)
    assert ours.stdout.splitlines()[:-1] == direct.stdout.splitlines()[:-1]
    listed = cli(["drill", "list"], drills).stdout.decode()
    assert any(
        line.split()[:1] == ["causal_mask"] and line.split()[4] == "2"
        for line in listed.splitlines()
    ), "both attempts were recorded, the warm one too"
    ours = cli(["progress", "notebooks"], warm)
    direct = cli(["progress", "notebooks", "--no-daemon"], warm)
    assert (ours.returncode, ours.stdout) == (direct.returncode, direct.stdout)


def test_a_drill_check_is_stamped_when_the_candidate_asked_not_when_the_grader_started(
    warm, tmp_path, tmp_path_factory
):
    """A trial: in a grader's first two minutes every `drill check` was stamped with the
    grader's own start (a process that young was taken for one started for the command), before
    the drill's own `start`: the timer read 0 s and the hints seen did not count."""
    import json
    from datetime import datetime

    young = {**warm, runtime.ENV_DIR: str(private_dir(tmp_path_factory))}
    young["ATTENTION_DRILL_HOME"] = str(tmp_path / "home")
    start(young)  # a grader that started before the drill did
    try:
        assert cli(["drill", "start", "causal_mask", "--dir", str(tmp_path)], young).returncode == 0
        time.sleep(1.5)
        asked = time.time()
        checked = cli(["drill", "check", str(next(tmp_path.glob("drill_*.py")))], young)
        assert checked.returncode == 1, checked.stderr
    finally:
        stop(young)
    saved = json.loads((tmp_path / "home" / "history.json").read_text())
    [timer] = saved["started"].values()
    [attempt] = saved["attempts"]
    began = datetime.fromisoformat(timer["at"]).timestamp()
    at = datetime.fromisoformat(attempt["at"]).timestamp()
    assert began + 1.5 <= at <= asked + 1.0, (timer, attempt)
    assert attempt["seconds"] >= 1.5, attempt


@pytest.mark.parametrize("daemon", ["0", "1"], ids=["own-process", "warm-grader"])
def test_a_reader_that_closes_the_pipe_early_gets_no_traceback(warm, daemon):
    """`check ... | head`: a trial saw a BrokenPipeError traceback (from the warm grader's worker,
    and from the command's own process), 3 times in 5; `| true` closes the pipe every time."""
    command = f"{sys.executable} -m autograder check {CASES[3][1]} | true"
    env = {**warm, "AUTOGRADER_DAEMON": daemon}
    run = subprocess.run(command, shell=True, cwd=ROOT, env=env, capture_output=True, timeout=600)
    assert not run.stderr, run.stderr.decode()  # (the status is `true`'s)


def test_start_status_stop_and_the_socket_is_private(own_grader):
    sock = client.connect()
    sock.close()
    state = client.control("status")
    assert state["fingerprint"] == runtime.fingerprint()
    where = runtime.paths(own_grader)
    assert stat.S_IMODE(os.stat(where.socket).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(own_grader).st_mode) == 0o700
    assert client.control("stop")["pid"] == state["pid"]
    assert gone(state["pid"])
    assert not where.socket.exists()
    assert client.control("status") is None


def test_status_says_in_words_what_a_user_needs_in_their_language(own_grader):
    """``status`` printed ``running: {...}``, the grader's dict: now whether it runs, its pid,
    since when, its idle timeout and its socket's folder, in words and in the caller's language;
    ``--json`` keeps the dict for a script (``null`` when none runs)."""
    env = {**os.environ, "LANG": "zh_CN.UTF-8", "AUTOGRADER_DAEMON_IDLE": "1800"}
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "AUTOGRADER_LANG"):
        env.pop(name, None)

    def service(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "autograder.service", *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)

    assert service("status").returncode == 1
    assert service("status").stdout.strip() == "常驻的评分程序没有在运行。"
    assert service("status", "--json").stdout.strip() == "null"
    started = service("start")
    assert started.returncode == 0, started.stderr
    pid = status(env)["pid"]
    said = service("status")
    assert said.returncode == 0, said.stderr
    lines = said.stdout.splitlines()
    assert lines[0] == f"常驻的评分程序正在运行（进程 {pid}）。", said.stdout
    assert lines[1].startswith("  自 20") and "起运行（" in lines[1], said.stdout
    assert "  30 分钟内没有请求就会退出" in said.stdout, said.stdout
    assert f"  套接字所在文件夹：{own_grader}" in lines, said.stdout
    words = said.stdout.replace(str(own_grader), "")  # no English word, no dict left
    assert "{" not in words and not re.search("[a-z]{3}", words), said.stdout
    english = subprocess.run(
        [sys.executable, "-m", "autograder.service", "status"],
        env={**env, "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
    ).stdout
    assert english.startswith(f"The warm grader is running (pid {pid}).\n  running since ")
    assert "it exits after 30 minutes without a request" in english, english
    stopped = service("stop")
    assert stopped.stdout.strip() == f"常驻的评分程序正在停止（进程 {pid}）。"
    assert gone(pid)


def test_it_exits_after_the_idle_timeout(own_grader, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_DAEMON_IDLE", "2")
    sock = client.connect()  # asked at once, on the connection that started it
    runtime.send(sock, {"kind": "status"})
    pid = runtime.receive(sock)[0]["pid"]
    sock.close()
    assert gone(pid), "still running long after its idle timeout"
    assert not runtime.paths(own_grader).socket.exists()


def test_a_changed_course_makes_it_step_down_and_a_new_one_start(own_grader):
    client.connect().close()
    old = client.control("status")["pid"]
    sock = client.connect(start=False)
    runtime.send(sock, {"kind": "judge", "fingerprint": "another version", "sources": []})
    assert runtime.receive(sock)[0] == {"stale": True}
    sock.close()
    assert gone(old)
    client.connect().close()  # what a client does on "stale": a new one, of this code
    assert client.control("status")["pid"] != old


def test_only_a_private_folder_of_ours_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv(runtime.ENV_DIR, str(tmp_path / "rt"))
    made = runtime.runtime_dir()
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o700
    made.chmod(0o755)
    with pytest.raises(runtime.Unsafe, match="open to other users"):
        runtime.runtime_dir()
    made.rmdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "rt").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(runtime.Unsafe, match="not a folder"):
        runtime.runtime_dir()
    if os.geteuid() == 0:
        (tmp_path / "rt").unlink()
        (tmp_path / "rt").mkdir(mode=0o700)
        os.chown(tmp_path / "rt", 65534, 65534)
        with pytest.raises(runtime.Unsafe, match="belongs to uid 65534"):
            runtime.runtime_dir()


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"),
    reason="needs root (to connect as another user) and /usr/bin/python3",
)
def test_another_users_connection_is_closed_unanswered(own_grader, monkeypatch):
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="ag-rt-", dir="/tmp"))  # a path nobody can reach
    own = own_grader
    monkeypatch.setenv(runtime.ENV_DIR, str(folder))
    try:
        client.connect().close()
        where = runtime.paths(folder)
        folder.chmod(0o711)  # as if the folder and socket were opened up by mistake
        where.socket.chmod(0o666)
        probe = (
            "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
            "try:\n"
            '    s.sendall(b\'\\x00\\x00\\x00\\x11{"kind":"status"}\')\n'
            "    print(repr(s.recv(100)))\n"
            "except (BrokenPipeError, ConnectionResetError):\n"  # closed before or after it wrote
            "    print(repr(b''))"
        )
        done = subprocess.run(
            ["/usr/bin/python3", "-I", "-c", probe, str(where.socket)],  # readable by nobody
            user=65534,
            capture_output=True,
            text=True,
            timeout=60,
        )
        folder.chmod(0o700)
        assert done.stdout.strip() == "b''", done.stdout + done.stderr  # closed, nothing said
        assert client.control("status"), "and the grader still serves its own user"
    finally:
        client.control("stop")
        shutil.rmtree(folder, ignore_errors=True)
        # own_grader's stop runs before monkeypatch's undo: pointed at the folder just removed,
        # it would make it again (a client makes its runtime folder) and leave it in /tmp
        monkeypatch.setenv(runtime.ENV_DIR, str(own))


@pytest.mark.slow  # grades in a fresh process too (the direct path), for comparison
@WARM
def test_where_it_cannot_start_the_direct_path_answers_and_says_so_once(tmp_path, warm):
    unsafe = tmp_path / "open"
    unsafe.mkdir(mode=0o755)
    unsafe.chmod(0o755)
    env = {**warm, runtime.ENV_DIR: str(unsafe)}
    ours = cli(CASES[2], env)
    direct = cli([*CASES[2], "--no-daemon"], env)
    assert (ours.returncode, ours.stdout) == (direct.returncode, direct.stdout)
    assert ours.stderr.decode().count("the warm grader is not used") == 1
    assert "open to other users" in ours.stderr.decode()
    assert not direct.stderr
    long = tmp_path / ("x" * 100)  # too long a path for a Unix socket
    long.mkdir(mode=0o700)
    ours = cli(CASES[2], {**warm, runtime.ENV_DIR: str(long)})
    assert (ours.returncode, ours.stdout) == (direct.returncode, direct.stdout)
    assert ours.stderr.decode().count("the warm grader is not used") == 1


def test_a_request_is_refused_without_a_socket_in_reach(monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOGRADER_DAEMON", "0")
    assert client.run_cli(["check", "x.py"]) is None
    assert client.judge({"file": "x.py"}) is None
    monkeypatch.setenv("AUTOGRADER_DAEMON", "1")
    assert client.run_cli(["drill", "list"]) is None  # only what grades
    assert client.run_cli(["check", "--help"]) is None
    assert isinstance(socket.AF_UNIX, int)


@pytest.mark.parametrize("cores, workers, ahead", [(2, 2, 1), (1, 1, 1), (4, 8, 3), (16, 4, 4)])
def test_grade_in_the_warm_grader_starts_no_sandbox_of_its_own_ahead(
    monkeypatch, tmp_path, cores, workers, ahead
):
    """In the warm grader, grade's first notebook takes the grader's own warm sandbox: grade
    starts none ahead (grading one student would load torch in them for nothing). Its own
    process starts ahead, while the judge imports, one sandbox per worker as far as the cores
    beside that import go; the others start when their worker takes its first notebook."""
    import argparse

    from autograder.grade import cli as grade_cli
    from autograder.sandbox.host import pool

    started = []
    monkeypatch.setattr(pool, "start_ahead", lambda count, **_: started.append(count))
    monkeypatch.setattr(grade_cli.os, "cpu_count", lambda: cores)
    verbs = argparse.ArgumentParser().add_subparsers()
    grade_cli.register(verbs)
    parser = verbs.choices["grade"]
    folder, out = str(tmp_path / "none"), str(tmp_path / "g.csv")
    args = parser.parse_args([folder, "--out", out, "--workers", str(workers)])
    for inside in (True, False):
        monkeypatch.setattr(client, "INSIDE", inside)
        assert grade_cli.main(args) == grade_cli.EXIT_UNGRADABLE  # no such folder
    assert started == [ahead]


def test_a_worker_whose_caller_left_exits_when_the_request_does_not_stop(monkeypatch):
    """A judge stuck in one native call never sees the KeyboardInterrupt: the worker exits
    after the grace period instead of keeping a core busy for no one (red team round 14)."""
    from autograder.service import worker

    ours, theirs = socket.socketpair()
    interrupted, exited = [], []
    monkeypatch.setattr(worker._thread, "interrupt_main", lambda: interrupted.append(1))
    monkeypatch.setattr(worker, "HANG_UP_GRACE_S", 0.1)

    def exit_(code):
        exited.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(worker.os, "_exit", exit_)
    theirs.close()  # the caller hangs up; the request (done never set) does not stop
    with pytest.raises(SystemExit):
        worker._watch(ours, threading.Event())
    assert interrupted == [1] and exited == [3]
    done = threading.Event()  # a request that stops when interrupted: the worker stays
    ours2, theirs2 = socket.socketpair()
    monkeypatch.setattr(worker._thread, "interrupt_main", done.set)
    theirs2.close()
    worker._watch(ours2, done)
    assert exited == [3]

"""Opt-in: the CPU-seconds of each test and xdist group, with the processes each test starts.

    CPU_TABLE=/tmp/cpu .venv/bin/python -m pytest -p tests.cpu_table -n 3 --dist loadgroup
    .venv/bin/python tests/cpu_table.py /tmp/cpu            # the table (top 25; --all: all)

Each worker writes one line per test: the CPU its own process tree spent during the test (itself,
every child it has reaped, every live descendant: kernels, the lab, Chromium, sandboxes of
``--no-daemon`` grading), read from /proc before and after. The session's warm grader is detached
(nobody's child), so it accounts for itself (``AUTOGRADER_CPU_LOG``,
:mod:`autograder.service.cpu_log`): one line per request, with the test that asked (its
``PYTEST_CURRENT_TEST``, or the test running at that moment on the caller's xdist worker), and
one per gap between requests (its start, spare sandboxes); the table adds each request to its
test. A test's figure includes the session fixtures it was first to need (a lesson run, a lab).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from autograder.service import cpu_log  # noqa: E402

OUT = os.environ.get("CPU_TABLE")
CGROUPS = "/sys/fs/cgroup/cpuacct"  # cgroup v1: each worker and the grader get their own


def _group(item) -> str:
    marker = item.get_closest_marker("xdist_group")
    if marker:
        return marker.args[0] if marker.args else marker.kwargs.get("name", "?")
    return item.nodeid.split("::")[0]


def pytest_configure(config):
    if not OUT:
        return
    Path(OUT).mkdir(parents=True, exist_ok=True)
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # the controller: the workers inherit it
        os.environ["AUTOGRADER_CPU_LOG"] = str(Path(OUT) / "service.jsonl")
        cgroup = Path(CGROUPS) / f"cpu-table-{os.getpid()}"
        try:
            cgroup.mkdir()
        except OSError:
            pass  # no cgroup: /proc trees (processes reparented to init are not seen)
        else:
            os.environ[cpu_log.CGROUP_ENV] = str(cgroup)
    cpu_log.enter_cgroup(os.environ.get("PYTEST_XDIST_WORKER", "main"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not OUT:
        yield
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    t0, cpu0 = time.time(), cpu_log.cpu()
    yield
    line = {
        "test": item.nodeid,
        "group": _group(item),
        "worker": worker,
        "t0": t0,
        "t1": time.time(),
        "cpu": cpu_log.cpu() - cpu0,
    }
    with open(Path(OUT) / f"tests-{worker}.jsonl", "a") as f:
        f.write(json.dumps(line) + "\n")


def pytest_sessionfinish(session):
    if not OUT:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(Path(OUT) / "processes.jsonl", "a") as f:
        f.write(json.dumps({"worker": worker, "pid": os.getpid(), "cpu": cpu_log.cpu()}))
        f.write("\n")
    if worker != "main":
        return
    import shutil

    runtime = os.environ.get("AUTOGRADER_RUNTIME_DIR")  # removed when the session ends
    for log in Path(runtime).glob("*.log") if runtime else ():
        shutil.copy(log, Path(OUT) / f"session-{log.name}")  # why a grader's worker restarted
    base = os.environ.get(cpu_log.CGROUP_ENV)
    if not base:
        return
    with open(Path(OUT) / "processes.jsonl", "a") as f:
        for cgroup in sorted(Path(base).iterdir()):
            if cgroup.is_dir():
                usage = int((cgroup / "cpuacct.usage").read_text()) / 1e9
                f.write(json.dumps({"worker": f"cgroup {cgroup.name}", "cpu": usage}) + "\n")


@pytest.hookimpl(trylast=True)  # after conftest's, which stops the session's grader
def pytest_unconfigure(config):
    base = os.environ.get(cpu_log.CGROUP_ENV)
    if not OUT or not base or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    time.sleep(1)  # the workers and the grader's processes have exited meanwhile
    try:  # this process back where it came from (the cgroup above the session's)
        (Path(base).parent / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        pass
    folders = [p for p in Path(base).iterdir() if p.is_dir()] + [Path(base)]
    for folder in folders:  # an empty cgroup is removed with rmdir; one still in use stays
        try:
            folder.rmdir()
        except OSError:
            pass


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def table(folder: Path, top: int | None = 25) -> str:
    tests = [t for p in sorted(folder.glob("tests-*.jsonl")) for t in _read(p)]
    by_id = {t["test"].split("@")[0]: t for t in tests}  # PYTEST_CURRENT_TEST has no @group
    for t in tests:
        t["service"] = 0.0
    unattributed = between = 0.0
    for r in _read(folder / "service.jsonl"):
        if r["kind"] == "between":
            between += r["cpu"]
            continue
        nodeid = r["test"].rsplit(" (", 1)[0]
        test = by_id.get(nodeid)
        if test is None and r.get("worker"):
            mid = (r["t0"] + r["t1"]) / 2
            test = next(
                (t for t in tests if t["worker"] == r["worker"] and t["t0"] <= mid <= t["t1"]), None
            )
        if test is None:
            unattributed += r["cpu"]
        else:
            test["service"] += r["cpu"]
    groups: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0, 0.0])
    for t in tests:
        g = groups[t["group"]]
        g[0] += t["cpu"]
        g[1] += t["service"]
        g[2] += 1
        g[3] += t["t1"] - t["t0"]
    total = sum(t["cpu"] + t["service"] for t in tests)
    lines = [f"{len(tests)} tests, {total:.0f} CPU-s in tests and the grader requests they made"]
    lines.append(f"grader between requests (start-up, spare sandboxes): {between:.1f} CPU-s")
    lines.append(f"grader requests not matched to a test: {unattributed:.1f} CPU-s")
    for p in _read(folder / "processes.jsonl"):
        lines.append(f"process tree at the end, {p['worker']}: {p['cpu']:.1f} CPU-s")
    lines.append("")
    lines.append(f"{'CPU-s':>7} {'own':>7} {'grader':>7} {'wall-s':>7}  test")
    ranked = sorted(tests, key=lambda t: -(t["cpu"] + t["service"]))
    for t in ranked[:top]:
        cpu = t["cpu"] + t["service"]
        wall = t["t1"] - t["t0"]
        lines.append(f"{cpu:7.1f} {t['cpu']:7.1f} {t['service']:7.1f} {wall:7.1f}  {t['test']}")
    lines.append("")
    lines.append(f"{'CPU-s':>7} {'own':>7} {'grader':>7} {'wall-s':>7} {'tests':>5}  group")
    ranked_groups = sorted(groups.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    for name, (own, service, n, wall) in ranked_groups[:top]:
        lines.append(f"{own + service:7.1f} {own:7.1f} {service:7.1f} {wall:7.1f} {n:5d}  {name}")
    return "\n".join(lines)


if __name__ == "__main__":
    args = sys.argv[1:]
    every = "--all" in args
    args = [a for a in args if a != "--all"]
    print(table(Path(args[0]), None if every else 25))

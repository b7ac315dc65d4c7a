"""Every lesson in a real browser: the project's JupyterLab, headless Chromium, Run All Cells.

For each released (blank) notebook and each solution notebook, in copies under a temporary folder,
the test opens the notebook in the learner's lab (the venv as ``make install`` sets it up), runs
Run → Run All Cells from the menu, waits for the kernel to go idle, and asserts what a learner
would see: no JavaScript console error, every widget rendered (no "Error displaying widget"),
every plot shown, no error output in a solution notebook, and in a blank notebook short
"not written yet" verdicts rather than tracebacks (the one error JupyterLab may show is nbgrader's
``raise NotImplementedError()`` stub of an unanswered question, where Run All stops). On failure
it saves a screenshot of the lesson under ``browser-artifacts/`` (with ``COURSE_SCREENSHOTS=1``, of
every lesson).

The browser is Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it),
driven by the ``playwright`` package (its own browser download is not used). Without chromium the
test is skipped with that reason, except where ``COURSE_REQUIRE_BROWSER=1`` (CI), where it fails.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "browser-artifacts"
RUN_TIMEOUT_S = 600  # one notebook, Run All to idle, on a slow shared CPU

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _lessons(folder: str) -> list[str]:
    return sorted(p.name for p in (ROOT / folder).iterdir() if (p / f"{p.name}.ipynb").is_file())


NOTEBOOKS = [("notebooks", name) for name in _lessons("notebooks")] + [
    ("solutions", name) for name in _lessons("solutions")
]

# Cells whose output must show a plot or a widget's picture (the course's plots and widgets).
PLOTTING = re.compile(r"(?<!def )\b(plot_\w+|SaturationExplorer|MaskBuilder)\(")  # a call
WAIT_FIRST = re.compile(r"write `\w+`( and `\w+`)* (and run the cells )?above first")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chromium() -> Path:
    if not CHROMIUM.is_file():
        reason = f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run installs it)"
        if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return CHROMIUM


@pytest.fixture(scope="module")
def lab(tmp_path_factory, chromium):
    """The project's JupyterLab on a free loopback port, serving copies of the notebooks."""
    root = tmp_path_factory.mktemp("course")
    for folder, name in NOTEBOOKS:
        (root / folder / name).mkdir(parents=True)
        shutil.copy(ROOT / folder / name / f"{name}.ipynb", root / folder / name)
    home = tmp_path_factory.mktemp("jupyter-home")  # no user-level settings or workspaces
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    env.pop("MPLBACKEND", None)  # the kernel uses the notebook's own backend, as for a learner
    port, token = _free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = (home / "lab.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start:\n{(home / 'lab.log').read_text()[-3000:]}")
            time.sleep(0.5)
    yield base, token
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


@pytest.fixture(scope="module")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # --no-sandbox: Chromium's own sandbox needs user namespaces, absent in most containers.
        browser = p.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        yield browser
        browser.close()


def _shut_down_kernels(base: str, token: str) -> None:
    """Free the CPU and memory of the notebooks already tested."""
    with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=30) as response:
        sessions = json.load(response)
    for session in sessions:
        url = f"{base}/api/sessions/{session['id']}?token={token}"
        urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=60)


def _run_all(page, base: str, token: str, path: str) -> list[str]:
    """Open ``path``, Run → Run All Cells, wait until the kernel is idle; the console errors."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    errors: list[str] = []

    def on_console(message):
        if message.type == "error":
            errors.append(f"{message.text} ({message.location.get('url')})")

    page.on("console", on_console)
    page.on("pageerror", lambda e: errors.append(str(e)))
    workspace = re.sub(r"\W", "-", path)  # a fresh workspace: no tab of another lesson
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{path}?token={token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=120_000)
    idle = page.locator(".jp-NotebookPanel-toolbar [data-status='idle']")  # the kernel's indicator
    idle.wait_for(timeout=120_000)
    page.get_by_text(re.compile(r"\| Idle$")).first.wait_for(timeout=120_000)  # the status bar
    prompts = page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt")
    for _ in range(3):  # a click while the kernel still connects may not take: try again
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item", has_text=re.compile(r"^Run All Cells")).first.click()
        try:
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]"
                ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))",
                timeout=30_000,
            )
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError(f"{path}: Run All Cells started nothing ({prompts.count()} cells)")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        busy = page.evaluate(
            """() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
                    .some(p => p.textContent.includes('*'))"""
        )
        if not busy and idle.count() == 1:
            break
        time.sleep(1)
    else:
        raise AssertionError(f"{path}: Run All Cells did not finish in {RUN_TIMEOUT_S} s")
    time.sleep(2)  # the last widgets and images render
    return errors


def _cells(page) -> list[dict]:
    """What each code cell shows: its prompt, text, error outputs, widgets and pictures."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')].map(cell => {
            const out = cell.querySelector('.jp-OutputArea');
            const imgs = out ? [...out.querySelectorAll('img')] : [];
            return {
                prompt: cell.querySelector('.jp-InputPrompt').textContent.trim(),
                text: out ? out.textContent : '',
                errors: out ? out.querySelectorAll(
                    '[data-mime-type="application/vnd.jupyter.stderr"]').length : 0,
                widgets: out ? out.querySelectorAll('.jupyter-widgets').length : 0,
                pictures: imgs.filter(i => i.complete && i.naturalWidth > 0).length
                          + (out ? out.querySelectorAll('canvas').length : 0),
                brokenImages: imgs.filter(i => i.complete && i.naturalWidth === 0).length,
            };
        })"""
    )


def _screenshot(page, folder: str, lesson: str) -> None:
    """The lesson as the learner sees it, its last widget in view, under browser-artifacts/."""
    widgets = page.locator(".jp-OutputArea .jupyter-widgets")
    if widgets.count():
        widgets.last.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{folder}-{lesson}.png")


def _is_stub(source: str) -> bool:
    """nbgrader's stub of an unanswered solution region, raising at the top level of a cell."""
    return "YOUR CODE HERE" in source and re.search(r"^raise NotImplementedError", source, re.M)


@pytest.mark.parametrize(("folder", "lesson"), NOTEBOOKS, ids=[f"{f}/{n}" for f, n in NOTEBOOKS])
def test_lesson_runs_in_the_learners_lab(lab, browser, folder, lesson):
    base, token = lab
    sources = [
        c.source
        for c in nbformat.read(ROOT / folder / lesson / f"{lesson}.ipynb", as_version=4).cells
        if c.cell_type == "code"
    ]
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        console = _run_all(page, base, token, f"{folder}/{lesson}/{lesson}.ipynb")
        shown = _cells(page)
        assert len(shown) == len(sources), "every code cell of the notebook is on the page"
        where = f"{folder}/{lesson}"

        # The learner's lab: no news pop-up, none of nbgrader's instructor tools.
        assert page.get_by_text("official Jupyter news").count() == 0, "the news prompt shows"
        assert page.locator(".lm-MenuBar-item", has_text="Nbgrader").count() == 0
        assert page.get_by_text("Create Assignment").count() == 0
        assert page.get_by_role("button", name="Validate").count() == 0

        assert not console, f"{where}: JavaScript console errors: {console}"
        assert "Error displaying widget" not in page.content(), f"{where}: a widget failed"
        ran = [(i, s, c) for i, (s, c) in enumerate(zip(sources, shown, strict=True))]
        ran = [(i, s, c) for i, s, c in ran if re.fullmatch(r"\[\d+\]:", c["prompt"])]
        assert ran, f"{where}: no cell ran"
        for i, source, cell in ran:
            assert not cell["brokenImages"], f"{where} cell {i}: an image did not load"
            if re.search(r"\bwidget\(", source):  # lesson 00's progress view
                assert cell["widgets"], f"{where} cell {i} shows no widget:\n{source}"
            if PLOTTING.search(source):
                waits = WAIT_FIRST.search(cell["text"]) and folder == "notebooks"
                assert cell["pictures"] or waits, f"{where} cell {i} shows no plot:\n{source}"
        if folder == "solutions":
            assert len(ran) == len(sources), f"{where}: Run All stopped at cell {len(ran)}"
            for i, _, cell in ran:
                assert not cell["errors"], f"{where} cell {i} shows an error:\n{cell['text']}"
        else:
            for i, source, cell in ran:
                if cell["errors"]:
                    assert _is_stub(source), f"{where} cell {i}: a traceback\n{cell['text']}"
                if re.match(r"check\(\w+\)", source.strip()):
                    assert "not written yet" in cell["text"], f"{where} cell {i}: {cell['text']}"
                    assert "Traceback" not in cell["text"]
    except BaseException:
        _screenshot(page, folder, lesson)
        raise
    else:
        if os.environ.get("COURSE_SCREENSHOTS") == "1":  # every lesson's, to look at
            _screenshot(page, folder, lesson)
    finally:
        page.close()
        _shut_down_kernels(base, token)

"""Every lesson in a real browser: the project's JupyterLab, headless Chromium.

The lessons' notebooks are executed once per test session (``tests/lesson_runs.py``: the solution
notebook and the blank learner notebook of each lesson, nbgrader's round trip, in a fresh
``python3`` kernel with a learner's inline plots); what that run printed, drew and raised is
checked in ``tests/test_notebooks.py``. Here the learner's lab shows it: each executed solution
notebook (every plot of its lesson), copied under a temporary folder, is opened in the lab (the
venv as ``make install`` sets it up) and must render: every cell on the page, every saved plot
loaded, no "Error displaying widget", no JavaScript console error, none of nbgrader's
instructor tools and no news prompt. The lab draws a widget only with a live kernel, so the
lessons whose widgets the gate must see drawn (lesson 00's progress view, 03's and 04's
explorers; every course widget is a VBox of ipywidgets controls and outputs) are also run for
real: Run → Run All Cells from the menu, the kernel left to go idle, every widget drawn and no
error output. On failure a screenshot of the lesson goes under ``browser-artifacts/`` (with
``COURSE_SCREENSHOTS=1``, of every lesson).

The browser is Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it),
driven by the ``playwright`` package (its own browser download is not used). Without chromium the
test is skipped with that reason, except where ``COURSE_REQUIRE_BROWSER=1`` (CI), where it fails.
"""

from __future__ import annotations

import contextlib
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

import lesson_runs
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "browser-artifacts"
RUN_TIMEOUT_S = 600  # one notebook, Run All to idle, on a slow shared CPU
# How often a page is asked whether it is ready: Playwright's default asks on every animation
# frame, which keeps Chromium drawing 60 frames a second for as long as a lesson takes to load.
POLL_MS = 200
LAB_STARTS = 3  # a port found free can be taken before the lab binds it: tried again, anew
# The lab's folder of each version of a lesson, as a learner has them.
FOLDERS = {"blank": "notebooks", "solution": "solutions"}

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Cells whose output must show a widget drawn live (lesson 00's progress view, 03's and 04's
# explorers); the other lessons' widgets are the same kind of VBox, checked from the run.
WIDGET = re.compile(r"(?<!def )\b(widget|SaturationExplorer|MaskBuilder)\(")


def _shows_a_widget(language: str, lesson: str) -> bool:
    path = lesson_runs.EDITIONS[language] / lesson / f"{lesson}.ipynb"
    cells = nbformat.read(path, as_version=4).cells
    return any(c.cell_type == "code" and WIDGET.search(c.source) for c in cells)


# The English lessons with a widget: run live in the lab (the other editions' code is the same).
LIVE = [(lang, lesson) for lang, lesson in lesson_runs.RUNS if lang == "en"]
LIVE = [run for run in LIVE if _shows_a_widget(*run)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium() -> Path:
    if not CHROMIUM.is_file():
        reason = f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run installs it)"
        if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return CHROMIUM


@pytest.fixture(scope="session")
def lab(tmp_path_factory, chromium):
    """The project's JupyterLab on a free loopback port, serving copies of the notebooks; one
    per session (worker), as the tests of each run come with that run's other gates."""
    root = tmp_path_factory.mktemp("course")  # the tests copy in the notebooks they open
    home = tmp_path_factory.mktemp("jupyter-home")  # no user-level settings or workspaces
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    env.pop("MPLBACKEND", None)  # the kernel uses the notebook's own backend, as for a learner
    token = secrets.token_hex(16)
    for attempt in range(1, LAB_STARTS + 1):
        server, base, log = _start_lab(root, home, env, token)
        if server is not None:
            break
        if attempt == LAB_STARTS or "is not available" not in log:
            pytest.fail(f"JupyterLab did not start:\n{log[-3000:]}")
        # the free port was taken before the lab bound it (by a kernel, a sandbox, another lab)
    yield base, token, root
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()


def _start_lab(root: Path, home: Path, env: dict, token: str):
    """``(server, base URL, "")`` once the lab answers on a port found free, or ``(None, None,
    its log)`` where it exited or did not answer within two minutes."""
    port = _free_port()
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
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: a lesson opens in one page
        # its kernels over Unix sockets, as the other tests' (lesson_runs.kernel_config: a TCP
        # port picked free was taken by another process before the kernel bound it)
        "--KernelManager.transport=ipc",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    path = home / f"lab-{port}.log"
    with path.open("w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
            return server, base, ""
        except OSError:  # not yet up (or another server's port: its answer is 403)
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                server.wait()
                return None, None, path.read_text()
            time.sleep(0.5)


class LabPage:
    """The session's page of the lab, booted once: each test opens its notebook in it with the
    lab's own command (``docmanager:open``, what the file browser runs) and closes it after.
    Booting the lab (its scripts, its plugins) is most of what a fresh page costs Chromium,
    about 6 of the 9 CPU-s of a lesson (measured): once per session, not once per lesson. A page
    that a test left in a bad state (the test failed, a tab would not close) is replaced."""

    def __init__(self, context, base: str, token: str):
        self.context, self.base, self.token = context, base, token
        self.page = None
        self.boot_errors: list[str] = []  # the console errors of booting it, for the next test

    def get(self):
        if self.page is None:
            page = self.context.new_page()
            page.on("console", self._on_console)
            page.on("pageerror", self._on_error)
            workspace = f"tests-{secrets.token_hex(4)}"  # a fresh workspace: no tab restored
            url = f"{self.base}/lab/workspaces/{workspace}?token={self.token}"
            page.goto(url, timeout=120_000)  # the lab's scripts, on a busy CPU (default: 30 s)
            page.wait_for_function("() => window.jupyterapp", polling=POLL_MS, timeout=120_000)
            page.evaluate("async () => { await window.jupyterapp.restored; }")
            page.remove_listener("console", self._on_console)
            page.remove_listener("pageerror", self._on_error)
            self.page = page
        return self.page

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.boot_errors.append(f"{message.text} ({message.location.get('url')})")

    def _on_error(self, error) -> None:
        self.boot_errors.append(str(error))

    def close_tabs(self) -> None:
        """Close every tab of the page (a notebook run live counts as saved: no prompt)."""
        if self.page is None:
            return
        try:
            self.page.evaluate(
                """() => { for (const w of [...window.jupyterapp.shell.widgets('main')]) {
                    if (w.context) w.context.model.dirty = false;
                    w.close();
                } }"""
            )
            self.page.wait_for_function(
                "() => !document.querySelector('.jp-NotebookPanel')",
                polling=POLL_MS,
                timeout=60_000,
            )
        except Exception:  # whatever went wrong, the next test gets a new page
            self.drop()

    def drop(self) -> None:
        if self.page is not None:
            with contextlib.suppress(Exception):
                self.page.close()
            self.page = None


@pytest.fixture(scope="session")
def browser(chromium, lab):
    """One Chromium, one browsing context and one page of the lab for the session (worker)."""
    from playwright.sync_api import sync_playwright

    base, token, _ = lab
    with sync_playwright() as p:
        # --no-sandbox: Chromium's own sandbox needs user namespaces, absent in most containers.
        browser = p.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = LabPage(context, base, token)
        yield page
        page.drop()
        context.close()
        browser.close()


def _shut_down_kernels(base: str, token: str) -> None:
    """Free the CPU and memory of the notebooks already tested."""
    with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=30) as response:
        sessions = json.load(response)
    for session in sessions:
        url = f"{base}/api/sessions/{session['id']}?token={token}"
        urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=60)


def _open(page, path: str, code_cells: int) -> None:
    """Open ``path`` in the lab (no other tab is open), wait until its ``code_cells`` are on the
    page (the lab attaches the cells out of view when the CPU is idle), its kernel is idle and
    its pictures are loaded."""
    page.evaluate(  # nothing returned: the widget it resolves to is no value to send back
        "path => { window.jupyterapp.commands.execute('docmanager:open', {path}); }", path
    )
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=120_000)
    idle = page.locator(".jp-NotebookPanel-toolbar [data-status='idle']")  # the kernel's indicator
    idle.wait_for(timeout=120_000)
    page.get_by_text(re.compile(r"\| Idle$")).first.wait_for(timeout=120_000)  # the status bar
    page.wait_for_function(
        f"() => document.querySelectorAll('.jp-Notebook .jp-CodeCell').length >= {code_cells}",
        polling=POLL_MS,
        timeout=120_000,
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-OutputArea img')].every(i => i.complete)",
        polling=POLL_MS,
        timeout=60_000,
    )
    time.sleep(1)  # the last widgets render


def _run_all(page, path: str, code_cells: int) -> None:
    """Open ``path``, Run → Run All Cells, wait until the kernel is idle."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    _open(page, path, code_cells)
    idle = page.locator(".jp-NotebookPanel-toolbar [data-status='idle']")
    prompts = page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt")
    for _ in range(3):  # a click while the kernel still connects may not take: try again
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item", has_text=re.compile(r"^Run All Cells")).first.click()
        try:
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]"
                ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))",
                polling=POLL_MS,
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


def _screenshot(page, name: str) -> None:
    """The lesson as the learner sees it, its last widget in view, under browser-artifacts/."""
    widgets = page.locator(".jp-OutputArea .jupyter-widgets")
    if widgets.count():
        widgets.last.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / (re.sub(r"[^\w.-]", "-", name) + ".png"))


def _learners_lab(page) -> None:
    """No news pop-up, none of nbgrader's instructor tools."""
    assert page.get_by_text("official Jupyter news").count() == 0, "the news prompt shows"
    assert page.locator(".lm-MenuBar-item", has_text="Nbgrader").count() == 0
    assert page.get_by_text("Create Assignment").count() == 0
    assert page.get_by_role("button", name="Validate").count() == 0


def _copy_into(root: Path, where: str, notebook: Path) -> str:
    """``notebook`` copied to ``root/where/<name>``; its path in the lab."""
    (root / where).mkdir(parents=True, exist_ok=True)
    shutil.copy(notebook, root / where / notebook.name)
    return f"{where}/{notebook.name}"


@contextlib.contextmanager
def _page(browser: LabPage, name: str):
    """The session's page of the lab and the JavaScript console errors it shows from now on;
    afterwards its tabs closed and the kernels shut down."""
    page = browser.get()
    errors, browser.boot_errors = browser.boot_errors, []

    def on_console(message):
        if message.type == "error":
            errors.append(f"{message.text} ({message.location.get('url')})")

    def on_error(error):
        errors.append(str(error))

    page.on("console", on_console)
    page.on("pageerror", on_error)
    try:
        yield page, errors
    except BaseException:
        _screenshot(page, name)
        browser.drop()
        raise
    else:
        if os.environ.get("COURSE_SCREENSHOTS") == "1":  # every lesson's, to look at
            _screenshot(page, name)
    finally:
        if browser.page is page:
            page.remove_listener("console", on_console)
            page.remove_listener("pageerror", on_error)
            browser.close_tabs()
        _shut_down_kernels(browser.base, browser.token)


def _saved(cell, mime: str) -> int:
    return sum(mime in out.get("data", {}) for out in cell.get("outputs", []))


# Rendering a notebook costs the lab's CPU (every cell attached, its maths typeset, its plots
# decoded): the solution notebooks, which show every plot; what a blank notebook shows (short
# verdicts, one stub error) is read from the run in tests/test_notebooks.py.
@pytest.mark.parametrize("student", ["solution"])
@pytest.mark.parametrize(("language", "lesson"), lesson_runs.params())
def test_executed_lesson_renders_in_the_learners_lab(lab, browser, lesson_run, student):
    """The notebook as the session's run left it (outputs, plots, widget state) renders in the
    lab: every cell, every plot, no widget error, no console error. (The lab draws a saved
    widget only once its kernel has started and answered: whether widgets draw is asked of a
    live kernel, below.)"""
    _, _, root = lab
    where = f"{lesson_run.language}/{FOLDERS[student]}/{lesson_run.assignment}"
    path = _copy_into(root, where, lesson_run.path(student))
    saved = [c for c in lesson_run.executed(student).cells if c.cell_type == "code"]
    with _page(browser, where) as (page, console):
        _open(page, path, len(saved))
        shown = _cells(page)
        assert len(shown) == len(saved), "every code cell of the notebook is on the page"
        _learners_lab(page)
        assert not console, f"{where}: JavaScript console errors: {console}"
        assert "Error displaying widget" not in page.content(), f"{where}: a widget failed"
        # MathJax draws a formula it cannot read as an error box (the Chinese edition now puts
        # Chinese words in \text{...}: lessons 03, 04, 08)
        assert not page.locator("mjx-merror").count(), f"{where}: a formula failed to typeset"
        for i, (cell, on_page) in enumerate(zip(saved, shown, strict=True)):
            assert not on_page["brokenImages"], f"{where} cell {i}: an image did not load"
            assert on_page["pictures"] >= _saved(cell, "image/png"), f"{where} cell {i}: a plot"


@pytest.mark.parametrize(("language", "lesson"), LIVE, ids=[lesson for _, lesson in LIVE])
def test_widgets_work_live_in_the_learners_lab(lab, browser, language, lesson):
    """A lesson with a widget, Run All Cells from the lab's menu: every cell runs without an
    error and every widget is drawn by the live kernel."""
    _, _, root = lab
    where = f"live/{language}/solutions/{lesson}"
    notebook = lesson_runs.EDITIONS[language] / lesson / f"{lesson}.ipynb"
    path = _copy_into(root, where, notebook)
    sources = [
        c.source for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"
    ]
    with _page(browser, where) as (page, console):
        _run_all(page, path, len(sources))
        shown = _cells(page)
        assert len(shown) == len(sources), "every code cell of the notebook is on the page"
        _learners_lab(page)
        assert not console, f"{where}: JavaScript console errors: {console}"
        assert "Error displaying widget" not in page.content(), f"{where}: a widget failed"
        ran = [c for c in shown if re.fullmatch(r"\[\d+\]:", c["prompt"])]
        assert len(ran) == len(sources), f"{where}: Run All stopped at cell {len(ran)}"
        for i, (source, cell) in enumerate(zip(sources, shown, strict=True)):
            assert not cell["errors"], f"{where} cell {i} shows an error:\n{cell['text']}"
            assert not cell["brokenImages"], f"{where} cell {i}: an image did not load"
            if WIDGET.search(source):
                assert cell["widgets"], f"{where} cell {i} shows no widget:\n{source}"

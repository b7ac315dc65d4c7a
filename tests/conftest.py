"""Shared fixtures and the ``gpu`` marker.

Tests marked ``@pytest.mark.gpu`` need a CUDA or MPS device; without one they are skipped with a
reason that says so (never silently passed).
"""

import os

# torch's OpenMP threads sleep when they have no work instead of spinning for it: under `-n 3`
# the workers, their kernels and the warm grader share the cores, and a spinning thread
# burns the CPU another process waits for (tests/test_course_lib_blocks.py's training test, at
# load 9: 16.4 CPU-s spinning, 1.6 asleep). Set before torch loads OpenMP, here and in every
# process the tests start (workers, kernels, the lab, the grader); results are the same.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import gc  # noqa: E402

# No cyclic collections while torch and the test modules load: nearly all they make lives as
# long as the process (autograder/core/loading.py). Back on once they are collected, below.
gc.disable()

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402


def accelerator() -> torch.device | None:
    """The CUDA or MPS device of this machine, or None."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return None


def pytest_configure(config):
    """The session's own warm grader (autograder/service/), in a private runtime folder of this
    process: the command lines and kernels the tests start share it, the learner's own grader is
    never touched, and it is stopped when the session ends. The main process also times how fast
    the machine ran (tests/machine_speed.py: a line after the results)."""
    if not hasattr(config, "workerinput"):  # not in an xdist worker
        from machine_speed import Probe

        config.pluginmanager.register(Probe(), "machine-speed")
    if os.environ.get("AUTOGRADER_RUNTIME_DIR"):
        return
    import tempfile

    os.environ["AUTOGRADER_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="ag-test-rt-")
    # The kernels' connection files and sockets (lesson_runs.kernel_config: Unix sockets, whose
    # paths may be at most 107 bytes long) in a short private folder of the session.
    runtime = os.environ["AUTOGRADER_RUNTIME_DIR"]
    os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(runtime, "jupyter")
    os.environ.setdefault("AUTOGRADER_DAEMON_WORKERS", "1")  # one: the xdist workers fill the cores
    os.environ.setdefault("AUTOGRADER_DAEMON_IDLE", "600")  # a backstop: stopped at the end
    config._service_dir = os.environ["AUTOGRADER_RUNTIME_DIR"]


def pytest_unconfigure(config):
    folder = getattr(config, "_service_dir", None)
    if folder:
        import shutil

        from autograder.service import client

        client.control("stop")
        os.environ.pop("AUTOGRADER_RUNTIME_DIR", None)
        os.environ.pop("JUPYTER_RUNTIME_DIR", None)
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_finish(session):
    gc.freeze()  # what the test modules loaded (gc.disable above): later collections skip it
    gc.enable()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    gc.enable()  # xdist's controller collects nothing


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own, which names each test's group
def pytest_collection_modifyitems(config, items):
    if getattr(config.option, "loadgroup", False):  # an xdist worker of `--dist loadgroup`
        # xdist groups a test by the "@<group>" it appends to the test's id; where that failed
        # (pytest 9.2 with pytest-xdist 3.8), every group is silently split over the workers and
        # each lesson run, warm grader and Dask cluster is made by both: those tests fail.
        for item in items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
                item.stash[_UNGROUPED] = True
    if accelerator() is not None:
        return
    skip = pytest.mark.skip(reason="needs a CUDA or MPS device; none is available here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


_UNGROUPED = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)  # before the fixtures are made
def pytest_runtest_setup(item):
    if item.stash.get(_UNGROUPED, False):
        pytest.fail(
            "pytest-xdist could not put this test in its xdist_group (with these versions of "
            "pytest and pytest-xdist, --dist loadgroup runs every group's tests on both workers, "
            "each making the group's costly fixture): install the versions requirements.txt "
            "pins (make install)",
            pytrace=False,
        )


@pytest.fixture
def gpu_device() -> torch.device:
    """The accelerator (tests using it are marked ``gpu``, so it exists when they run)."""
    device = accelerator()
    assert device is not None, "mark tests that use gpu_device with @pytest.mark.gpu"
    return device


@pytest.fixture
def generator() -> torch.Generator:
    """A seeded CPU generator: tests draw their random inputs from it, never from global state."""
    return torch.Generator().manual_seed(0)


@pytest.fixture
def randn(generator):
    """``randn(*shape, dtype=torch.float64)``: seeded normal samples (float64 by default)."""

    def draw(*shape: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)

    return draw


def copy_mha_weights(ours: nn.Module, theirs: nn.MultiheadAttention) -> None:
    """Load ``nn.MultiheadAttention``'s weights into a course ``MultiHeadAttention``.

    torch packs the three input projections into ``in_proj_weight`` (rows: q, then k, then v).
    """
    w_q, w_k, w_v = theirs.in_proj_weight.chunk(3)
    with torch.no_grad():
        ours.w_q.weight.copy_(w_q)
        ours.w_k.weight.copy_(w_k)
        ours.w_v.weight.copy_(w_v)
        ours.w_o.weight.copy_(theirs.out_proj.weight)
        if theirs.in_proj_bias is not None:
            b_q, b_k, b_v = theirs.in_proj_bias.chunk(3)
            ours.w_q.bias.copy_(b_q)
            ours.w_k.bias.copy_(b_k)
            ours.w_v.bias.copy_(b_v)
            ours.w_o.bias.copy_(theirs.out_proj.bias)


@pytest.fixture
def load_mha_weights():
    """The function :func:`copy_mha_weights`, for tests that compare with torch's modules."""
    return copy_mha_weights


@pytest.fixture
def short_backstop(monkeypatch):
    """``short_backstop(*names, seconds=3.0)``: the exercises ``names`` (code that sleeps or
    hangs, judged in this process) get a wall-clock backstop of ``seconds`` instead of the
    production one (4 times the CPU limit + 10 s: 14 s of waiting per test for a 1 s limit);
    every other exercise keeps the production backstop, so a busy machine fails nothing."""
    from autograder.sandbox.host import submission

    real_begin = submission.Submission.begin
    short: set[str] = set()
    wait = {"seconds": 3.0}

    def begin(self, exercise):
        if exercise.name not in short:
            return real_begin(self, exercise)
        with monkeypatch.context() as m:
            m.setattr(submission, "wall_backstop", lambda cpu_limit: wait["seconds"])
            return real_begin(self, exercise)

    monkeypatch.setattr(submission.Submission, "begin", begin)

    def shorten(*names: str, seconds: float = 3.0) -> None:
        short.update(names)
        wait["seconds"] = seconds

    return shorten


@pytest.fixture
def venv_on_path(monkeypatch):
    """The kernel (``python3`` runs ``python``) and nbgrader (``alembic``) come from this venv."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend, as in Jupyter


@pytest.fixture
def lesson_run(tmp_path_factory, language, lesson):
    """The run of the lesson's notebooks in ``language`` (tests/lesson_runs.py): executed once per
    session, by the first test that asks; parametrise with ``lesson_runs.params()``."""
    import lesson_runs

    return lesson_runs.get(language, lesson, tmp_path_factory)


@pytest.fixture
def no_pyplot_figures_leak():
    """The course's plots are built without pyplot's global state: a test leaves no figure open."""
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    yield
    assert plt.get_fignums() == before, "viz must build figures without pyplot's global state"

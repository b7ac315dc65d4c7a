"""matplotlib is loaded in a sandbox's server only for code that plots.

A server that loaded it at its start cost every sandbox 0.4 CPU-s, and every fork 24 MiB more of
pages to copy, in lessons whose graded code never plots. The judge now says, as it asks for a
learner process, whether the code names matplotlib or a course module that loads it
(``autograder/sandbox/host/plots.py``); the server then loads it first, once, for that fork and
every later one (``inside/worker.load_plots``).
"""

from __future__ import annotations

import subprocess
import sys

from autograder.sandbox.host.bwrap import SANDBOX_FILES
from autograder.sandbox.host.plots import needs_plots, plotting_modules
from autograder.sandbox.host.server import Server
from tests.sandbox.marks import NEEDS_BWRAP, called_in

# (never the module's name whole: code that names it is code that plots)
LOOKS = """
import sys

LOADED = "matplot" + "lib" in sys.modules  # before this code imported anything{comment}


def loaded():
    return LOADED
"""


def loaded_for(server: Server, comment: str = "") -> bool:
    return called_in(server, "loaded", LOOKS.format(comment=comment))


@NEEDS_BWRAP
def test_the_server_loads_matplotlib_for_code_that_plots_and_keeps_it():
    server = Server(strong=True)
    try:
        assert server.wait_ready(300)
        assert loaded_for(server) is False
        assert loaded_for(server, "  # then: from course_lib.viz_attention import ...") is True
        assert loaded_for(server) is True  # a later fork finds it loaded
    finally:
        server.close()


def test_code_plots_when_it_names_matplotlib_or_a_course_module_that_loads_it():
    assert needs_plots(["import matplotlib.pyplot as plt"])
    assert needs_plots(["x = 1", "from course_lib import viz_blocks as vb"])
    assert needs_plots(["import course_lib.viz_efficient"])
    assert not needs_plots(["from course_lib.viz import plot_attention, MaskBuilder"])
    assert not needs_plots(["from course_lib.data import toy_batch", "import torch"])
    assert not needs_plots(["matplotlibx = 1", "my_viz_blocks = 2"])  # whole names only


BLOCKED = """
import importlib, importlib.abc, sys


class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "matplotlib":
            raise ImportError("blocked: " + name)


sys.meta_path.insert(0, Blocked())
for name in sys.argv[1:]:
    try:
        importlib.import_module("course_lib." + name)
    except ImportError as e:
        print(name, "blocked" in str(e))
    else:
        print(name, False)
"""


def test_the_course_modules_said_to_load_matplotlib_are_those_that_do():
    """What the judge reads in the modules' sources, against what importing each one does: in
    one process where matplotlib cannot be imported, those said to load it fail for it and the
    others import."""
    modules = sorted(
        dest.removeprefix("course_lib/").removesuffix(".py")
        for dest in SANDBOX_FILES
        if dest.startswith("course_lib/") and not dest.endswith("__init__.py")
    )
    plotting = plotting_modules()
    assert plotting and plotting < set(modules)
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED, *modules], capture_output=True, text=True, check=True
    )
    loads = {
        name
        for name, blocked in (line.split() for line in done.stdout.splitlines())
        if blocked == "True"
    }
    assert loads == plotting

"""torch loads without the garbage collector: in the sandbox's server and in the judge.

Nearly everything an import makes lives as long as the process, yet the collector went over it
again and again while torch loaded (some 40 collections, 0.2 of a sandbox's 1.3 CPU-s start).
The server and the judge's command lines now load with collection off, then freeze what they
loaded (``autograder/core/loading.py``; ``inside/zygote.serve``, ``inside/worker.load_plots``).
"""

from __future__ import annotations

import gc
import sys
import weakref

from autograder.core.loading import loading
from autograder.sandbox.host.server import Server
from tests.sandbox.marks import NEEDS_BWRAP, called_in

COLLECTIONS = """
import gc

SEEN = [s["collections"] for s in gc.get_stats()]  # as the server forked this process{comment}


def collections():
    return SEEN
"""


def collections_for(server: Server, comment: str = "") -> list[int]:
    return called_in(server, "collections", COLLECTIONS.format(comment=comment))


@NEEDS_BWRAP
def test_the_server_loads_torch_and_matplotlib_without_collecting():
    server = Server(strong=True)
    try:
        assert server.wait_ready(300)
        # torch and the grader's modules: the server's whole start
        assert sum(collections_for(server)[1:]) <= 2  # 43 of generation 1 and 3 full before
        # matplotlib, loaded for code that plots (test_plots_loaded.py)
        assert sum(collections_for(server, "  # course_lib.viz_attention")[1:]) <= 2
    finally:
        server.close()


def test_loading_turns_collection_off_inside_and_freezes_what_it_loaded(tmp_path, monkeypatch):
    (tmp_path / "a_new_module.py").write_text("MADE = [[] for _ in range(100)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with loading():
        assert not gc.isenabled()
        with loading():  # nested: still off at the inner one's end
            import a_new_module
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(a_new_module.MADE)
    monkeypatch.delitem(sys.modules, "a_new_module")


def test_loading_nothing_new_freezes_nothing():
    """The warm grader runs `check` again and again: the garbage of its earlier requests (an
    exception and its frames hold each other) is collected, not frozen. (Asked of the garbage
    itself: the count of frozen objects also falls as frozen objects are freed.)"""
    with loading():
        import autograder.sandbox.host.server  # noqa: F401  (loaded above)

        cycles = [_Cycle() for _ in range(100)]
        for c in cycles:
            c.me = c
        gone = [weakref.ref(c) for c in cycles]
        del cycles, c
    gc.collect()
    assert not [ref for ref in gone if ref() is not None]


class _Cycle:
    """An object that holds itself: garbage only the collector frees."""


def test_loading_leaves_collection_off_where_it_was_off():
    gc.disable()
    try:
        with loading():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()

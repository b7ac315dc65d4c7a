"""What runs inside the sandbox: the learner's code, and the judge's calls into it.

This module is imported once by the warm server (:mod:`autograder.sandbox.inside.zygote`) before
any learner
code exists, so that each learner process starts as a cheap fork with torch already loaded. The
course's reference (``course_lib``'s exercise modules) and the checks are *not* here: they are not
even in the sandbox's filesystem, so learner code can neither call nor read nor clone them.

A learner process (:func:`learner_main`) lives as long as the judge's ``Submission``:

1. it locks itself down (:mod:`autograder.sandbox.inside.lockdown`): limits, a private working
directory, an
   audit hook;
2. it resolves what each exercise forbids *before* the learner's code runs
   (:mod:`autograder.sandbox.inside.watch`);
3. it runs the learner's definitions statement by statement, noting the ones that raise;
4. for every exercise the judge begins, it forks an exercise process under that exercise's
   CPU-time limit (``RLIMIT_CPU``), waits for it (killing it at the wall-clock backstop) and
   reports how it ended: its wait status and the CPU seconds it used.

The exercise process (:func:`exercise_main`) answers the judge's requests one at a time. There
are four, all generic (:class:`autograder.sandbox.protocol.Request`): ``call`` a learner's function,
class, object or method (under the watch for forbidden calls), ``new`` (the same, keeping the
object as a handle), ``get`` a value, and ``apply`` a helper of
:mod:`autograder.sandbox.inside.remote` to an
object. Replies are plain data (:mod:`autograder.sandbox.inside.plain`).
"""

from __future__ import annotations

import ast
import builtins
import gc
import linecache
import math
import os
import pickle
import random
import resource
import select
import signal
import sys
import time
from contextlib import nullcontext, suppress
from functools import partial
from types import FunctionType

import torch

import course_lib.data  # noqa: F401  (the sandbox's own: the helpers, not the reference)
import course_lib.device  # noqa: F401  (lessons import them in their set-up cells:
import course_lib.memory  # noqa: F401   loaded once here, not once per submission)
import course_lib.viz  # noqa: F401
from autograder.sandbox.inside import remote
from autograder.sandbox.inside.devices import DefaultDeviceFactories, has_tensor
from autograder.sandbox.inside.inplace import InputSnapshot
from autograder.sandbox.inside.lockdown import (
    LIBC,
    PR_SET_DUMPABLE,
    PR_SET_PDEATHSIG,
    Lockdown,
    map_code,
    own_domain,
    prctl,
)
from autograder.sandbox.inside.plain import describe_error, error_message, send, to_plain
from autograder.sandbox.inside.watch import Guard, Ops, Rules, Watch, profiler, report
from autograder.sandbox.protocol import (
    Begin,
    Channel,
    ChannelClosed,
    Request,
    Setup,
    close_fds_except,
    encode,
)


def _as_written(model=None, **options):
    """``torch.compile`` in the sandbox: the function or module as written. Its compilers need
    threads, a C compiler and a cache folder, none of which the sandbox gives (a learner's
    ``@torch.compile`` was refused as tampering), and the grade judges what code computes."""
    return _as_written if model is None else model


torch.compile = _as_written


def _undisabled() -> int:
    """Resolve every ``torch._disable_dynamo`` wrapper made so far to its function as written,
    as Dynamo's own ``disable`` would on its first call, but without importing Dynamo: nothing
    compiles here (:func:`_as_written`), so "run this without Dynamo" is running it. Each wrapper
    imports ``torch._dynamo`` on its first call (1.2 CPU-s, a third of a sandbox's start); torch
    wraps its own Python kernels so (the reference ops behind 'meta' kernels, the optimizers'
    ``step``), and :class:`~autograder.sandbox.inside.watch.Watch`'s handler. A wrapper made
    later (a learner's own dispatch mode) still imports it, and is as safe: Dynamo compiles no
    frame while a dispatch mode is on the stack, and the watch is one. Returns how many (none
    where torch wraps them otherwise: each then loads Dynamo on its first call, slower, as right).
    """
    consts = torch._compile._disable_dynamo.__code__.co_consts
    inner = next((c for c in consts if getattr(c, "co_name", None) == "inner"), None)
    if inner is None or "fn" not in inner.co_freevars:
        return 0
    cell = inner.co_freevars.index("fn")
    resolved = 0
    for obj in gc.get_objects():
        if type(obj) is FunctionType and obj.__code__ is inner:
            fn = obj.__closure__[cell].cell_contents
            with suppress(AttributeError, TypeError):  # (a builtin takes no attributes)
                if getattr(fn, "__dynamo_disable", None) is None:
                    fn.__dynamo_disable = fn
                    resolved += 1
    return resolved


# The helpers ``apply`` may run: the functions of autograder.sandbox.inside.remote, by name.
HELPERS = {
    name: fn
    for name, fn in vars(remote).items()
    if callable(fn) and getattr(fn, "__module__", None) == remote.__name__ and name[0] != "_"
}


def load_plots(contained: bool) -> None:
    """Load matplotlib in the server, before the fork of a learner process whose code plots (the
    judge says so: ``protocol.PLOTS``), so that it and every later one find it loaded. Loaded at
    every sandbox's start, it cost each 0.4 CPU-s and each fork 24 MiB more of pages to copy, in
    lessons whose graded code never plots (a class of lesson 04: two sandboxes, 120 forks).

    The server calls it only while no learner process is alive, the sandbox just reset: nothing
    a learner left in /tmp (a ``matplotlibrc`` in its MPLCONFIGDIR) is read by the server, whose
    state every later fork inherits. matplotlib's font list is copied there first (a reset
    emptied /tmp), from the judge's (building it costs seconds)."""
    if "matplotlib.pyplot" in sys.modules:
        return
    cache, seed = os.environ.get("MPLCONFIGDIR"), "/sandbox/fonts"
    if contained and cache and os.path.isdir(seed):
        os.makedirs(cache, exist_ok=True)
        for name in os.listdir(seed):
            with open(os.path.join(seed, name), "rb") as src:
                with open(os.path.join(cache, name), "wb") as dst:
                    dst.write(src.read())
    gc.disable()  # as zygote.serve loads torch: what is loaded stays
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401  (what course_lib's figures use, the Agg canvas)
    finally:
        gc.freeze()  # as what was loaded before forking the first (zygote.serve)
        gc.enable()


def _warm_up() -> None:
    """Run the watchers once here, so their lazy imports happen before each fork, not after."""
    with Guard({}, Ops(), []), Watch(Ops(), True, []):
        x = torch.ones(2, 2)
        (x @ x).softmax(-1).sum().item()
    with Watch(Ops(), True, []):
        torch.ones(2, 2, device="meta") @ torch.ones(2, 2, device="meta")
    encode({"type": "event", "kind": "x", "what": "y"})


class LearnerNamespace:
    """The learner's namespace, the objects the judge made in it, and the locks around them."""

    def __init__(self, setup: Setup, workdir: str, hidden: tuple[str, ...] = ()):
        self.rules = Rules(setup.forbid)
        self.ns = {"__name__": "__main__", "__builtins__": builtins}
        self.handles = {}
        self.lock = Lockdown(workdir, hidden)

    # -- learner code ------------------------------------------------------------------------
    def run_code(self, cells):
        problems = []
        for label, source in cells:
            filename = f"<{label}>"
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            try:
                nodes = ast.parse(source).body
            except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
                problems.append(f"{label}: {describe_error(e)}")
                continue
            for node in nodes:
                module = ast.Module(body=[node], type_ignores=[])
                try:
                    code = compile(module, filename, "exec")
                    self.lock.learner_call(partial(exec, code, self.ns))
                except BaseException as e:  # SystemExit and KeyboardInterrupt too
                    problems.append(f"{label}, line {node.lineno}: {describe_error(e)}")
        self.lock.refusals = []
        defined = sorted(k for k, v in self.ns.items() if callable(v) and not k.startswith("__"))
        return defined, problems

    # -- requests ----------------------------------------------------------------------------
    def target(self, req: Request):
        """The object a request names: a learner's global or a handle, then its attribute path
        (``req.method``, dotted) if any."""
        name = req.target
        obj = self.handles[name] if isinstance(name, int) else self.ns.get(name)
        if obj is None:
            raise NameError(f"{name} is not defined")
        for attr in req.method.split(".") if req.method else ():
            obj = getattr(obj, attr)
        return obj

    def serve(self, req: Request, exercise: str):
        op = req.op
        if op == "call" or op == "new":
            return self.watched_call(req, exercise)
        if op == "get":  # a learner's global (None if not defined), or an object's attribute
            if isinstance(req.target, str) and not req.method:
                return {"value": self.ns.get(req.target)}
            return {"value": self.lock.learner_call(partial(self.target, req))}
        if op == "ready":  # a measured call comes next (zygote.PeakMemory)
            map_code()
            _give_back_freed_memory()  # what earlier calls freed is not held at its start
            return {"value": None}
        if op == "apply":  # a helper of autograder.sandbox.inside.remote, applied to an object
            helper = HELPERS.get(req.helper)
            if helper is None:
                raise ValueError(f"no helper {req.helper!r} in autograder.sandbox.inside.remote")
            obj = self.target(req)
            return {"value": self.lock.learner_call(lambda: helper(obj, *req.args, **req.kwargs))}
        raise ValueError(f"unknown request {op!r}")

    def watched_call(self, req: Request, exercise: str):
        objects, codes, ops = self.rules.of(exercise)
        seen = []
        fn = self.target(req)
        watch_python = profiler(objects, codes, seen)
        self.lock.refusals = []
        # The caller's inputs must come back unchanged, and code given tensors must create its
        # own on their device: both are checked around the call, outside the learner's reach.
        inputs = InputSnapshot(fn, req.args, req.kwargs)
        factories = DefaultDeviceFactories((req.args, req.kwargs))
        watch_factories = req.op != "new" and req.devices and has_tensor(req.args, req.kwargs)
        watch = Watch(ops, req.watch, seen)
        error = None
        self.lock.set_profile(watch_python)
        try:
            # The device watch below the guard: the guard sees the learner's calls first, and the
            # tensors the device watch looks at (t.dim(), t.device) are not torch calls it sees
            # again (each one was: 2.9 for each of the learner's calls in a tiled loop).
            with (
                factories if watch_factories else nullcontext(),
                Guard(objects, ops, seen),
                watch if (ops or watch.record) else nullcontext(),
            ):
                value = self.lock.learner_call(lambda: fn(*req.args, **req.kwargs))
        except BaseException as e:
            error = e
        finally:
            intact = sys.getprofile() is watch_python
            self.lock.set_profile(None)
        if error is None:
            error = inputs.check()
        if error is None and watch_factories:
            error = factories.check(value)
        trace = watch.trace() if req.watch else None
        if not intact:
            report("tampered", "your code switched off the grader's watch on forbidden calls")
        if error is not None:
            raise error
        if req.op == "new":
            handle = len(self.handles) + 1
            self.handles[handle] = value
            return {"value": handle, "trace": trace}
        return {"value": value, "trace": trace}


_undisabled()
_warm_up()


def _wait(pid: int, wall_limit: float) -> tuple[int, float, bool]:
    """Wait for the exercise process (killing it at the wall-clock backstop): its wait status,
    the CPU seconds it (and the children it waited for) used, and whether the backstop fired."""
    if hasattr(os, "pidfd_open"):
        fd = os.pidfd_open(pid)
        try:
            ended = bool(select.select([fd], [], [], wall_limit)[0])
        finally:
            os.close(fd)
    else:  # not Linux: look every 50 ms
        deadline = time.monotonic() + wall_limit
        while not (ended := os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        ended = bool(ended)
    if not ended:
        os.kill(pid, signal.SIGKILL)
    _, status, usage = os.wait4(pid, 0)
    return status, usage.ru_utime + usage.ru_stime, not ended


def exercise_main(box: LearnerNamespace, chan: Channel, begin: Begin) -> None:
    """An exercise process: its CPU-time limit, then the judge's requests until it hangs up."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the learner process
    own_domain()  # Landlock: it cannot reach the learner process's memory (/proc/<ppid>/mem)
    seconds = max(1, math.ceil(begin.cpu_limit))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    report.chan, report.sent = chan, set()
    if not begin.measures_memory:  # the heap for blocks up to 32 MiB again: faster
        _map_large_blocks(HEAP_BLOCKS, trim=2 * HEAP_BLOCKS)
    torch.manual_seed(0)  # the same random numbers in every run: grading is reproducible
    random.seed(0)
    # and the same garbage: torch.empty's memory filled (NaN), not what a freed tensor left there
    # (an accumulator from torch.empty was NaN in one process, right in the next: three messages).
    # ATen's flag, as torch.use_deterministic_algorithms sets it, without its line for Inductor's
    # config: that import would load Dynamo into every exercise process (_undisabled)
    torch._C._set_deterministic_algorithms(True, warn_only=True)
    while True:
        try:
            req = pickle.loads(chan.receive())  # from the judge, which we trust
        except ChannelClosed:
            os._exit(0)
        try:
            reply = box.serve(req, begin.exercise)
            if "value" in reply:  # learner code (a __repr__, say) may run here too
                reply["value"] = box.lock.learner_call(partial(to_plain, reply["value"]))
        except BaseException as e:  # the learner's exception, reported, never fatal
            reply = error_message(e)
        send(chan, reply)


def _give_back_freed_memory() -> None:
    """glibc keeps freed heap memory resident: an exercise process forked with it would reuse it
    by copying it on write, and the peak-memory measure (zygote.PeakMemory) counts pages copied
    during a measured call as the call's. Given back to the system before the fork, it is new
    pages there (and their peak counts as the call's, as in a .py file's exercise process)."""
    if hasattr(LIBC, "malloc_trim"):  # glibc
        LIBC.malloc_trim(0)


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (glibc's malloc.h)
LARGE_BLOCK = 128 * 1024  # glibc's default mmap threshold, in bytes
HEAP_BLOCKS = 32 * 2**20  # the most its dynamic threshold rises to (64-bit), in bytes


def _map_large_blocks(threshold: int, trim: int) -> None:
    """Blocks of ``threshold`` bytes or more mapped from the system and unmapped when freed, and
    the heap's free top given back past ``trim`` bytes (the dynamic pair: 2x the threshold):
    LARGE_BLOCK in the learner process from before any learner code runs, so that a measured
    call's peak (``Begin.measures_memory``: tiled_attention) is the memory it holds, whatever the
    heap's layout; HEAP_BLOCKS again in the exercise processes of the other exercises. glibc's
    threshold is dynamic: once a large block is freed, later ones up to its size come from the
    heap, whose freed gaps between small blocks stay resident; and a large block the heap's bins
    hold is taken from them whatever the threshold (fixed at a measured exercise's start only,
    it failed one run in two). Tiled code that keeps a small tensor per key block beside each
    freed 1 MiB tile grew its peak by a tile per block (64 MiB for 64 blocks, against 2 MiB
    mapped: tests/sandbox/test_peak_heap.py), and the course's own solution measured 8 to 24 MiB
    from one sandbox to the next, against a limit of 28: 7 to 8.3 MiB with this. Mapped blocks
    cost their page faults: code of large float64 tensors (dot_product_variance) ran 3x slower,
    past its CPU limit, hence the heap again where nothing is measured."""
    if hasattr(LIBC, "mallopt"):  # glibc
        LIBC.mallopt(M_MMAP_THRESHOLD, threshold)
        LIBC.mallopt(M_TRIM_THRESHOLD, trim)


def learner_main(fd: int, contained: bool, workdir: str, hidden: tuple[str, ...] = ()) -> None:
    """A learner process in ``workdir`` (the server's: it removes it once this process has ended):
    lock down, load the learner's code, then fork one process per exercise."""
    chan = Channel.from_fd(fd)
    # Dumpable (the server, forked from, is not): the server measures this process's and its
    # exercise processes' peak memory through /proc (zygote.PeakMemory). Only this submission's
    # own processes share the sandbox with it.
    prctl(PR_SET_DUMPABLE, 1)
    setup: Setup = pickle.loads(chan.receive())
    box = LearnerNamespace(setup, workdir, hidden)
    box.lock.lock_down(setup, contained)
    _map_large_blocks(
        LARGE_BLOCK, trim=LARGE_BLOCK
    )  # before any learner code: nothing large in the heap's bins
    chan.send(encode({"type": "locked"}))  # set up: a failure before this is the grader's
    defined, problems = box.run_code(setup.cells)
    chan.send(encode({"type": "loaded", "defined": defined, "problems": problems}))
    gc.freeze()  # the learner's definitions too, for its exercise processes (as zygote.serve)
    while True:
        fds: list[int] = []
        try:
            begin: Begin = pickle.loads(chan.receive(fds=fds))
        except ChannelClosed:
            os._exit(0)
        _give_back_freed_memory()
        pid = os.fork()
        if pid == 0:
            try:
                close_fds_except(fds[0])
                exercise_main(box, Channel.from_fd(fds[0]), begin)
            finally:
                os._exit(70)
        for f in fds:
            os.close(f)
        status, cpu, wall_hit = _wait(pid, begin.wall_limit)
        chan.send(
            encode({"type": "exited", "status": status, "cpu": cpu, "wall_limit_hit": wall_hit})
        )

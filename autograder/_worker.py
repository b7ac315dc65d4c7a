"""What runs inside the sandbox: the learner's code, and the judge's calls into it.

This module is imported once by the warm server (:mod:`autograder._zygote`) before any learner
code exists, so that each learner process starts as a cheap fork with torch already loaded. The
course's reference (``course_lib``'s exercise modules) and the checks are *not* here: they are not
even in the sandbox's filesystem, so learner code can neither call nor read nor clone them.

A learner process (:func:`learner_main`) lives as long as the judge's ``Submission``:

1. it locks itself down: resource limits (memory, file size, processes, CPU time), a private
   working directory, stdout/stderr sent to a file there (nothing the learner prints can look like
   a result), and an audit hook that refuses, with a clear message, what the operating system's
   sandbox would stop anyway (writing outside the working directory, processes, sockets, ctypes,
   threads, switching the watch off);
2. it resolves what each exercise forbids *before* the learner's code runs;
3. it runs the learner's definitions statement by statement, noting the ones that raise;
4. for every exercise the judge begins, it forks an exercise process under that exercise's
   CPU-time limit (``RLIMIT_CPU``), waits for it (killing it at the wall-clock backstop) and
   reports how it ended: its wait status and the CPU seconds it used.

The exercise process answers the judge's requests one at a time, watching every call for forbidden
functions with a profiler, a torch function mode and, where needed, a dispatch mode; each forbidden
call is written to the judge's socket at once (an ``event``), so no later rewriting of Python
objects can hide it. Replies are ``torch.save`` bytes of plain data (:mod:`autograder.protocol`).
"""

from __future__ import annotations

import builtins
import ctypes
import linecache
import math
import os
import pickle
import pkgutil
import random
import resource
import select
import signal
import sys
import tempfile
import time
import traceback
from contextlib import nullcontext
from functools import partial

import matplotlib
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import course_lib.data  # noqa: F401  (the sandbox's own: the helpers, not the reference)
import course_lib.device  # noqa: F401  (lessons import them in their set-up cells:
import course_lib.memory  # noqa: F401   loaded once here, not once per submission)
import course_lib.viz  # noqa: F401
from autograder._devices import DefaultDeviceFactories, has_tensor
from autograder._inplace import InputSnapshot
from autograder.protocol import Begin, Channel, ChannelClosed, Request, Setup, encode

# Notebooks import plots from course_lib.viz; preloading matplotlib makes their cells cheap.
matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402, F401

# Packages that are absent from the sandbox: what an exercise forbids of them cannot be reached
# (the course's reference is forbidden to every exercise, and is simply not there).
ABSENT = ("course_lib",)
NOBODY = 65534
PROCESS_LIMIT = 64  # processes and threads of one sandbox (a fork bomb stops here)
FILE_SIZE_LIMIT = 16 * 2**20
_libc = ctypes.CDLL(None, use_errno=True)  # loaded now: learner code may not load ctypes
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4


def prctl(option: int, value: int) -> None:
    """Linux's prctl (a no-op elsewhere: there, only process isolation is on offer anyway)."""
    if hasattr(_libc, "prctl"):
        _libc.prctl(option, value)


def _warm_up() -> None:
    """Run the watchers once here, so their lazy imports happen before each fork, not after."""
    with Guard({}, []), Watch({}, True, []):
        x = torch.ones(2, 2)
        (x @ x).softmax(-1).sum().item()
    with Watch({}, True, []):
        torch.ones(2, 2, device="meta") @ torch.ones(2, 2, device="meta")
    encode({"type": "event", "kind": "x", "what": "y"})


class Refused(PermissionError):
    """What the sandbox raises when learner code tries something it does not allow."""


def _readable_by_others(path: str) -> bool:
    """Can an unprivileged user import from ``path``? (Python under /root often is not.)"""
    path = os.path.realpath(path)
    parts = path.split(os.sep)
    for i in range(2, len(parts) + 1):
        if not os.stat(os.sep.join(parts[:i]) or os.sep).st_mode & 0o005:
            return False
    return True


def _code_key(code):
    return (code.co_filename, code.co_firstlineno, code.co_name)


class Rules:
    """What each exercise forbids, resolved to objects, code keys and ATen op names."""

    def __init__(self, forbid: dict[str, list[str]]):
        self.by_exercise = {ex: self._resolve(names) for ex, names in forbid.items()}

    def _resolve(self, names):
        objects, codes, ops = {}, {}, {}
        for dotted in names:
            if dotted.startswith("aten."):
                ops["aten::" + dotted[5:]] = dotted
                continue
            if dotted.split(".")[0] in ABSENT:
                continue  # not in the sandbox: nothing to watch
            obj = pkgutil.resolve_name(dotted)
            members = vars(obj).values() if isinstance(obj, type) else [obj]
            for member in members:
                member = getattr(member, "__func__", member)
                code = getattr(member, "__code__", None)
                if code is not None:
                    codes[_code_key(code)] = dotted
                elif callable(member):
                    objects[id(member)] = dotted
            objects[id(obj)] = dotted
        return objects, codes, ops


class Reporter:
    """Writes what the learner's code does wrong to the judge's socket the moment it happens."""

    def __init__(self):
        self.chan = None
        self.sent = set()

    def __call__(self, kind, what):
        if self.chan is None or (kind, what) in self.sent:
            return
        self.sent.add((kind, what))
        self.chan.send(encode({"type": "event", "kind": kind, "what": what}))


report = Reporter()


class Watch(TorchDispatchMode):
    """Sees every ATen op: forbidden ops, and (when asked) the shape of every output."""

    def __init__(self, ops, record, seen):
        super().__init__()
        self.ops, self.record, self.seen = ops, record, seen
        self.largest_numel, self.largest_shape, self.shapes, self.names = 0, (), [], set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func._schema.name
        if name in self.ops:
            self.seen.append(self.ops[name])
            report("forbidden", self.ops[name])
        out = func(*args, **(kwargs or {}))
        if self.record:
            self.names.add(name.removeprefix("aten::"))
            for t in out if isinstance(out, tuple | list) else (out,):
                if isinstance(t, torch.Tensor):
                    shape = tuple(t.shape)
                    self.shapes.append(shape)
                    if t.numel() > self.largest_numel:
                        self.largest_numel, self.largest_shape = t.numel(), shape
        return out


class Guard(TorchFunctionMode):
    """Sees every torch function, however it was reached (``torch.softmax``, ``x.softmax``...)."""

    def __init__(self, objects, seen):
        super().__init__()
        self.objects, self.seen = objects, seen

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = self.objects.get(id(func))
        if name is not None:
            self.seen.append(name)
            report("forbidden", name)
        return func(*args, **(kwargs or {}))


class Sandbox:
    """The learner's namespace, the objects the judge made in it, and the locks around them."""

    def __init__(self, setup: Setup, workdir: str, hidden: tuple[str, ...] = ()):
        self.rules = Rules(setup.forbid)
        self.ns = {"__name__": "__main__", "__builtins__": builtins}
        self.handles = {}
        self.profiling = False  # True only while the harness itself switches the profiler
        self.learner = False  # True while learner code runs
        self.refusals = []  # what the audit hook refused during the current call
        self.workdir = workdir
        self.hidden = tuple(os.path.realpath(p) for p in hidden)
        helpers = os.path.dirname(os.path.abspath(sys.modules["course_lib"].__file__))
        # the course's helpers stay importable where the checkout itself is hidden
        self.readable = {os.path.realpath(os.path.join(helpers, f)) for f in os.listdir(helpers)}

    # -- lock-down ---------------------------------------------------------------------------
    def lock_down(self, setup: Setup, contained: bool):
        os.chdir(self.workdir)
        out = os.open(os.path.join(self.workdir, "output.txt"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        try:
            with open("/proc/self/statm") as f:
                vm_bytes = int(f.read().split()[0]) * resource.getpagesize()
        except OSError:  # not Linux
            vm_bytes = 0
        limit = vm_bytes + setup.memory_limit
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # Loading runs under its own CPU limit; the hard limit stays open, so that each exercise
        # process can set its own (a process may lower a hard limit, never raise it).
        cpu = math.ceil(resource.getrusage(resource.RUSAGE_SELF).ru_utime + setup.load_cpu_limit)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))
        if contained:
            # Counted per user namespace: this sandbox's processes and threads, nobody else's.
            resource.setrlimit(resource.RLIMIT_NPROC, (PROCESS_LIMIT, PROCESS_LIMIT))
        elif os.geteuid() == 0 and _readable_by_others(os.path.dirname(os.__file__)):
            # without the OS sandbox, at least never run learner code as root
            os.chown(self.workdir, NOBODY, NOBODY)
            os.chown(os.path.join(self.workdir, "output.txt"), NOBODY, NOBODY)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        os.environ["HOME"] = self.workdir
        torch.set_num_threads(1)
        sys.addaudithook(self.audit)
        # The watchers see one thread: a thread of the learner's could run what is forbidden
        # unseen, so learner code starts none (grading needs none).
        import _thread
        import threading

        def no_threads(*args, **kwargs):
            if self.learner:
                self.refuse("starting threads")
            return start_new_thread(*args, **kwargs)

        start_new_thread = _thread.start_new_thread
        _thread.start_new_thread = threading._start_new_thread = no_threads

    def refuse(self, what):
        self.refusals.append(what)
        report("refused", what)
        raise Refused(f"the grader's sandbox does not allow {what}")

    def audit(self, event, args):
        if not self.learner:
            return
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return
            real = os.path.realpath(os.fsdecode(path))
            writes = (mode and any(c in mode for c in "wax+")) or (
                flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC)
            )
            if writes and not (real.startswith(self.workdir) or real == "/dev/null"):
                self.refuse(f"writing {path}")
            if self.hidden and real.startswith(self.hidden) and real not in self.readable:
                self.refuse(f"reading {path}: write your own code")
        elif event in ("sys.setprofile", "sys.settrace", "threading.setprofile"):
            if not self.profiling:
                self.refuse("changing the profiler")
        elif event in (
            "os.remove",
            "os.rename",
            "os.replace",
            "os.rmdir",
            "os.truncate",
            "os.link",
            "os.symlink",
            "os.chmod",
            "os.chown",
            "os.mkdir",
            "os.utime",
        ):
            paths = [a for a in args if isinstance(a, str | bytes | os.PathLike)]
            for p in paths:
                if not os.path.realpath(os.fsdecode(p)).startswith(self.workdir):
                    self.refuse(f"{event.replace('os.', '')} on {os.fsdecode(p)}")
        elif event in (
            "os.kill",
            "os.killpg",
            "resource.setrlimit",
            "resource.prlimit",
            "os.fork",
            "os.forkpty",
            "os.system",
            "gc.get_objects",
            "gc.get_referrers",
            "gc.get_referents",
        ) or event.startswith(
            ("ctypes.", "socket.", "subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "pty.")
        ):
            self.refuse(event)

    # -- learner code ------------------------------------------------------------------------
    def run_code(self, cells):
        import ast

        problems = []
        for label, source in cells:
            filename = f"<{label}>"
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            try:
                nodes = ast.parse(source).body
            except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
                problems.append(f"{label}: {self.describe_error(e)}")
                continue
            for node in nodes:
                module = ast.Module(body=[node], type_ignores=[])
                try:
                    code = compile(module, filename, "exec")
                    self.learner = True
                    try:
                        exec(code, self.ns)
                    finally:
                        self.learner = False
                except BaseException as e:  # SystemExit and KeyboardInterrupt too
                    problems.append(f"{label}, line {node.lineno}: {self.describe_error(e)}")
        self.refusals = []
        defined = sorted(k for k, v in self.ns.items() if callable(v) and not k.startswith("__"))
        return defined, problems

    @staticmethod
    def describe_error(e):
        return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__

    @staticmethod
    def raised_by_learner(e):
        """Was ``e`` raised by the learner's own line (not by torch, deeper down)?"""
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        return tb is not None and tb.tb_frame.f_code.co_filename.startswith("<")

    @staticmethod
    def learner_traceback(e):
        frames = [
            f
            for f in traceback.extract_tb(e.__traceback__)
            if f.filename.startswith("<cell")
            or f.filename.startswith("<")
            and f.filename.endswith(".py>")
        ]
        lines = [f"  {f.filename[1:-1]}, line {f.lineno}, in {f.name}: {f.line}" for f in frames]
        return "\n".join(lines[-3:])

    # -- requests ----------------------------------------------------------------------------
    def target(self, req: Request):
        name = req.target
        obj = self.handles[name] if isinstance(name, int) else self.ns.get(name)
        if obj is None:
            raise NameError(f"{name} is not defined")
        if req.method:
            obj = getattr(obj, req.method)
        return obj

    def serve(self, req: Request, exercise: str):
        op = req.op
        if op == "call" or op == "new":
            return self.watched_call(req, exercise)
        if op == "get":  # a learner's global, e.g. the answer to a question
            return {"value": self.ns.get(req.target)}
        obj = self.handles[req.target]
        if op == "load_state_dict":
            state = req.extra["state_dict"]
            self.learner_call(lambda: obj.load_state_dict(state, strict=True))
            return {"value": None}
        if op == "describe":
            return {"value": describe(obj)}
        if op == "fit":
            x = req.extra
            return {"value": self.learner_call(lambda: fit(obj, x["tokens"], x["steps"], x["lr"]))}
        raise ValueError(f"unknown request {op!r}")

    def learner_call(self, fn):
        self.learner = True
        try:
            return fn()
        finally:
            self.learner = False

    def watched_call(self, req: Request, exercise: str):
        objects, codes, ops = self.rules.by_exercise.get(exercise, ({}, {}, {}))
        seen = []
        fn = self.target(req)

        def profiler(frame, event, arg):
            if event == "call":
                name = codes.get(_code_key(frame.f_code))
            elif event == "c_call":
                name = objects.get(id(arg))
            else:
                return
            if name is not None:
                seen.append(name)
                report("forbidden", name)

        self.refusals = []
        # The caller's inputs must come back unchanged, and code given tensors must create its
        # own on their device: both are checked around the call, outside the learner's reach.
        inputs = InputSnapshot(fn, req.args, req.kwargs)
        factories = DefaultDeviceFactories()
        watch_factories = (
            req.op != "new" and req.extra.get("devices", True) and has_tensor(req.args, req.kwargs)
        )
        watch = Watch(ops, req.watch, seen)
        trace, error = None, None
        self.profiling = True
        sys.setprofile(profiler)
        self.profiling = False
        try:
            with (
                Guard(objects, seen),
                watch if (ops or watch.record) else nullcontext(),
                factories if watch_factories else nullcontext(),
            ):
                value = self.learner_call(lambda: fn(*req.args, **req.kwargs))
        except BaseException as e:
            error = e
        finally:
            intact = sys.getprofile() is profiler
            self.profiling = True
            sys.setprofile(None)
            self.profiling = False
        if error is None:
            error = inputs.check()
        if error is None and watch_factories:
            error = factories.check(value)
        if req.watch:
            trace = {
                "largest_numel": watch.largest_numel,
                "largest_shape": list(watch.largest_shape),
                "shapes": [list(s) for s in watch.shapes],
                "ops": sorted(watch.names),
            }
        if not intact:
            report("tampered", "your code switched off the grader's watch on forbidden calls")
        if error is not None:
            raise error
        if req.op == "new":
            handle = len(self.handles) + 1
            self.handles[handle] = value
            return {"value": handle, "trace": trace}
        return {"value": value, "trace": trace}


def to_plain(value, depth=0):
    """Learner values as plain data the judge can load safely (tensors, numbers, containers)."""
    if depth > 8:
        return {"__opaque__": type(value).__name__, "repr": "(nested too deeply)"}
    if isinstance(value, torch.Tensor):
        t = value.detach()
        if type(t) is not torch.Tensor:
            t = t.as_subclass(torch.Tensor)
        if t.layout != torch.strided:
            return {"__opaque__": f"Tensor({t.layout})", "repr": ""}
        return t.clone() if t.device.type == "meta" else t.to("cpu").clone().contiguous()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, torch.dtype):
        return value
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, tuple):  # named tuples too
        return tuple(to_plain(v, depth + 1) for v in value)
    if isinstance(value, list):
        return [to_plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v, depth + 1) for k, v in value.items()}
    if hasattr(value, "item") and hasattr(value, "dtype"):  # numpy scalars
        try:
            return value.item()
        except Exception:
            pass
    try:
        text = repr(value)[:200]
    except Exception:
        text = "?"
    return {"__opaque__": type(value).__name__, "repr": text}


def describe(obj):
    info = {"type": f"{type(obj).__module__}.{type(obj).__qualname__}"}
    info["is_module"] = isinstance(obj, torch.nn.Module)
    if not info["is_module"]:
        return info
    children = {}
    for name, child in obj.named_children():
        c = {"type": f"{type(child).__module__}.{type(child).__qualname__}"}
        for attr in ("in_features", "out_features", "num_embeddings", "embedding_dim"):
            if hasattr(child, attr):
                c[attr] = int(getattr(child, attr))
        if isinstance(child, torch.nn.Linear):
            c["bias"] = child.bias is not None
        if isinstance(child, torch.nn.LayerNorm):
            c["normalized_shape"] = list(child.normalized_shape)
        children[name] = c
    info["children"] = children
    info["parameters"] = {n: list(p.shape) for n, p in obj.named_parameters()}
    info["num_parameters"] = int(sum(p.numel() for p in obj.parameters()))
    return info


def fit(model, tokens, steps, lr):
    """Next-token training: cross-entropy of logits[:, :-1] against tokens[:, 1:]."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    losses = []
    for _ in range(steps):
        logits = model(tokens)
        loss = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    model.eval()
    return losses


_warm_up()


def send(chan, message):
    """Send a reply or an error; a value torch cannot save becomes an error saying so."""
    message = {"type": "reply", "trace": None, **message} if "value" in message else message
    try:
        data = encode(message)
    except Exception as e:
        data = encode(error_message(TypeError(f"cannot return this value: {e}")))
    chan.send(data)


def error_message(e: BaseException) -> dict:
    return {
        "type": "error",
        "kind": type(e).__name__,
        "message": str(e)[:2000],
        "traceback": Sandbox.learner_traceback(e),
        "raised_by_learner": Sandbox.raised_by_learner(e),
    }


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


def exercise_main(box: Sandbox, chan: Channel, begin: Begin) -> None:
    """An exercise process: its CPU-time limit, then the judge's requests until it hangs up."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the learner process
    seconds = max(1, math.ceil(begin.cpu_limit))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    report.chan, report.sent = chan, set()
    torch.manual_seed(0)  # the same random numbers in every run: grading is reproducible
    random.seed(0)
    while True:
        try:
            req = pickle.loads(chan.receive())  # from the judge, which we trust
        except ChannelClosed:
            os._exit(0)
        try:
            reply = box.serve(req, begin.exercise)
            if "value" in reply:  # learner code (a __repr__, say) may run here too
                reply["value"] = box.learner_call(partial(to_plain, reply["value"]))
        except BaseException as e:  # the learner's exception, reported, never fatal
            reply = error_message(e)
        send(chan, reply)


def learner_main(fd: int, contained: bool, hidden: tuple[str, ...] = ()) -> None:
    """A learner process: lock down, load the learner's code, then fork one process per exercise."""
    chan = Channel.from_fd(fd)
    prctl(PR_SET_DUMPABLE, 0)  # no other process of the sandbox reads its memory
    setup: Setup = pickle.loads(chan.receive())
    workdir = os.path.realpath(tempfile.mkdtemp(prefix="submission-"))
    box = Sandbox(setup, workdir, hidden)
    box.lock_down(setup, contained)
    defined, problems = box.run_code(setup.cells)
    chan.send(encode({"type": "loaded", "defined": defined, "problems": problems}))
    while True:
        fds: list[int] = []
        try:
            begin: Begin = pickle.loads(chan.receive(fds=fds))
        except ChannelClosed:
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            try:
                from autograder.protocol import close_fds_except

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

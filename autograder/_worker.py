"""What runs inside the sandbox: the learner's code, and the judge's calls into it.

This module is imported by the fork server before any learner code exists, so that each sandbox
starts as a cheap fork with torch already loaded. ``main`` is the sandbox's whole life:

1. lock itself down: resource limits, a fresh working directory, an unprivileged user when started
   as root, stdout/stderr sent to a file (nothing the learner prints can look like a result), and an
   audit hook that forbids writing files outside the sandbox, reading the grader's or the
   reference's source, starting processes, sockets, ctypes and switching profilers off;
2. resolve what each exercise forbids *before* the learner's code runs (so it cannot swap the
   things being watched for look-alikes);
3. run the learner's definitions statement by statement, noting the ones that raise;
4. answer the judge's requests (call a function, build an object, load weights, ...) one at a
   time, watching every call for forbidden functions with a profiler, a torch function mode and,
   where asked, a dispatch mode that records every op's output shape.

Replies go back as ``torch.save`` bytes that the judge reads with ``weights_only=True``: plain
data and tensors, never pickled objects that could run code in the judge.
"""

from __future__ import annotations

import builtins
import importlib
import io
import linecache
import os
import pickle
import pkgutil
import resource
import sys
import traceback
from contextlib import nullcontext
from functools import partial

import matplotlib
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from autograder.contract import REFERENCE_MODULES  # the course_lib modules of the exercises

# The reference modules are imported now, so that the learner never needs to read their source.
for _name in REFERENCE_MODULES:
    importlib.import_module(_name)

# Notebooks import plots from course_lib.viz; preloading matplotlib makes their cells cheap.
matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402, F401


def _warm_up() -> None:
    """Run the watchers once here, so their lazy imports happen before each fork, not after."""
    with Guard({}, []), Watch({}, True, []):
        x = torch.ones(2, 2)
        (x @ x).softmax(-1).sum().item()
    with Watch({}, True, []):
        torch.ones(2, 2, device="meta") @ torch.ones(2, 2, device="meta")


class Refused(PermissionError):
    """What the sandbox raises when learner code tries something it does not allow."""


NOBODY = 65534


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
        return func(*args, **(kwargs or {}))


class Sandbox:
    """The learner's namespace, the objects the judge made in it, and the locks around them."""

    def __init__(self, setup):
        self.rules = Rules(setup["forbid"])
        self.ns = {"__name__": "__main__", "__builtins__": builtins}
        self.handles = {}
        self.profiling = False  # True only while the harness itself switches the profiler
        self.learner = False  # True while learner code runs
        self.refusals = []  # what the audit hook refused during the current call
        self.workdir = setup["workdir"]
        blocked = [os.path.dirname(sys.modules["autograder"].__file__)]
        for name in REFERENCE_MODULES:  # the source and its compiled copy in __pycache__
            if name in sys.modules:
                folder, file = os.path.split(sys.modules[name].__file__)
                stem = file.removesuffix(".py")
                blocked += [
                    os.path.join(folder, file),
                    os.path.join(folder, "__pycache__", stem + "."),
                ]
        self.blocked_reads = tuple(os.path.realpath(p) for p in blocked)

    # -- lock-down ---------------------------------------------------------------------------
    def lock_down(self, memory_limit):
        os.chdir(self.workdir)
        out = os.open(os.path.join(self.workdir, "output.txt"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        with open("/proc/self/statm") as f:
            vm_bytes = int(f.read().split()[0]) * resource.getpagesize()
        limit = vm_bytes + memory_limit
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 2**20, 16 * 2**20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if os.geteuid() == 0 and _readable_by_others(os.path.dirname(os.__file__)):
            # never run learner code as root: as nobody, it cannot touch the course's files
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
            if real.startswith(self.blocked_reads):
                self.refuse(f"reading {path}: write your own code")
        elif event in ("sys.setprofile", "sys.settrace", "threading.setprofile"):
            if not self.profiling:
                self.refuse("changing the profiler")
        elif event in (
            "os.kill",
            "os.killpg",
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
            for node in ast.parse(source).body:
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
    def target(self, req):
        name = req["target"]
        obj = self.handles[name] if isinstance(name, int) else self.ns.get(name)
        if obj is None:
            raise NameError(f"{name} is not defined")
        if req.get("method"):
            obj = getattr(obj, req["method"])
        return obj

    def serve(self, req):
        op = req["op"]
        if op == "call" or op == "new":
            return self.watched_call(req)
        if op == "get":  # a learner's global, e.g. the answer to a question
            return {"value": self.ns.get(req["target"])}
        obj = self.handles[req["target"]]
        if op == "load_state_dict":
            self.learner_call(lambda: obj.load_state_dict(req["state_dict"], strict=True))
            return {"value": None}
        if op == "describe":
            return {"value": describe(obj)}
        if op == "fit":
            return {
                "value": self.learner_call(lambda: fit(obj, req["tokens"], req["steps"], req["lr"]))
            }
        raise ValueError(f"unknown request {op!r}")

    def learner_call(self, fn):
        self.learner = True
        try:
            return fn()
        finally:
            self.learner = False

    def watched_call(self, req):
        objects, codes, ops = self.rules.by_exercise.get(req.get("exercise"), ({}, {}, {}))
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

        self.refusals = []
        watch = Watch(ops, req.get("watch", False), seen)
        trace, error = None, None
        self.profiling = True
        sys.setprofile(profiler)
        self.profiling = False
        try:
            with Guard(objects, seen), watch if (ops or watch.record) else nullcontext():
                value = self.learner_call(lambda: fn(*req["args"], **req["kwargs"]))
        except BaseException as e:
            error = e
        finally:
            intact = sys.getprofile() is profiler
            self.profiling = True
            sys.setprofile(None)
            self.profiling = False
        if req.get("watch"):
            trace = {
                "largest_numel": watch.largest_numel,
                "largest_shape": list(watch.largest_shape),
                "shapes": [list(s) for s in watch.shapes],
                "ops": sorted(watch.names),
            }
        if not intact:
            return {"tampered": "your code switched off the grader's watch on forbidden calls"}
        if self.refusals:  # reported even if the learner's code caught the exception
            return {"tampered": "the grader's sandbox does not allow " + "; ".join(self.refusals)}
        if seen:
            return {"forbidden": sorted(set(seen))}
        if error is not None:
            raise error
        if req["op"] == "new":
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


def send(conn, message):
    buf = io.BytesIO()
    try:
        torch.save(message, buf)
    except Exception as e:
        buf = io.BytesIO()
        torch.save(
            {
                "error": {
                    "kind": "TypeError",
                    "message": f"cannot return this value: {e}",
                    "traceback": "",
                }
            },
            buf,
        )
    conn.send_bytes(buf.getvalue())


def main(conn, setup):
    """The sandbox process: lock down, load the learner's code, then serve the judge."""
    box = Sandbox(setup)
    box.lock_down(setup["memory_limit"])
    defined, problems = box.run_code(setup["cells"])
    send(conn, {"loaded": True, "defined": defined, "problems": problems})
    while True:
        try:
            req = pickle.loads(conn.recv_bytes())  # from the judge, which we trust
        except EOFError:
            return
        try:
            reply = box.serve(req)
            if "value" in reply:  # learner code (a __repr__, say) may run here too
                reply["value"] = box.learner_call(partial(to_plain, reply["value"]))
        except BaseException as e:  # the learner's exception, reported, never fatal
            reply = {
                "error": {
                    "kind": type(e).__name__,
                    "message": str(e)[:2000],
                    "traceback": box.learner_traceback(e),
                    "raised_by_learner": Sandbox.raised_by_learner(e),
                }
            }
        send(conn, reply)

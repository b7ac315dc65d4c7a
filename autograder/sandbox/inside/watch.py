"""Inside the sandbox: what each exercise forbids, and the watchers that see it being called.

Every forbidden call is written to the judge's socket the moment it happens (:data:`report`), so
no later rewriting of Python objects can hide it. Three watchers look at a learner call (see
:meth:`autograder.sandbox.inside.worker.LearnerNamespace.watched_call`): a profiler (Python
functions, by their code's file, line and name), :class:`Guard` (torch functions, however they
are reached) and :class:`Watch` (ATen ops, and when asked, the shape of every op's output).
"""

from __future__ import annotations

import pkgutil
from fnmatch import fnmatchcase

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from autograder.sandbox.protocol import encode

# Packages that are absent from the sandbox: what an exercise forbids of them cannot be reached
# (the course's reference is forbidden to every exercise, and is simply not there).
ABSENT = ("course_lib",)


def code_key(code):
    return (code.co_filename, code.co_firstlineno, code.co_name)


def is_pattern(name: str) -> bool:
    return any(c in name for c in "*?[")


class Ops:
    """The ATen ops an exercise forbids: names (``aten._softmax``) and shell-style patterns
    (``aten.*attention*``: every op whose name matches, so a family of ops, such as every fused
    attention kernel, is one entry however many variants a torch release adds); and patterns of
    torch functions (``torch.*attention*``: every function :class:`Guard` sees whose name
    matches, public or private, however it was looked up)."""

    def __init__(self, dotted=()):
        self.names, self.patterns, self.seen, self.functions = {}, [], {}, []
        self.seen_functions: dict[str, str | None] = {}  # name: what to report (or None)
        for name in dotted:
            if name.startswith("torch."):
                self.functions.append(name)
                continue
            op = "aten::" + name.removeprefix("aten.")
            if any(c in op for c in "*?["):
                self.patterns.append(op)
            else:
                self.names[op] = name

    def __bool__(self):
        return bool(self.names or self.patterns or self.functions)

    def function(self, func):
        """``torch.name`` when the torch function ``func`` matches a forbidden pattern."""
        if not self.functions:
            return None
        name = "torch." + str(getattr(func, "__name__", ""))
        if name not in self.seen_functions:  # (matched once per name: called on every torch call)
            hit = any(fnmatchcase(name, p) for p in self.functions)
            self.seen_functions[name] = name if hit else None
        return self.seen_functions[name]

    def get(self, op):
        """What to report for the op ``aten::name``: its forbid entry, the op itself when a
        pattern matches it (``aten.name``), or None when it is allowed."""
        if op not in self.seen:
            hit = any(fnmatchcase(op, p) for p in self.patterns)
            self.seen[op] = self.names.get(op) or ("aten." + op[6:] if hit else None)
        return self.seen[op]


def op_name(func):
    """``aten::name`` of an ATen op called as a Python object (``torch.ops.aten.name`` or one of
    its overloads, however it was looked up), or None for anything else."""
    if isinstance(func, torch._ops.OpOverloadPacket):
        return func._qualified_op_name
    if isinstance(func, torch._ops.OpOverload):
        return func._schema.name
    return None


class Rules:
    """What each exercise forbids, resolved to objects, code keys and ATen ops."""

    def __init__(self, forbid: dict[str, list[str]]):
        self.by_exercise = {ex: self._resolve(names) for ex, names in forbid.items()}

    def _resolve(self, names):
        objects, codes = {}, {}
        ops = Ops(n for n in names if n.startswith("aten.") or is_pattern(n))
        for dotted in names:
            if dotted.startswith("aten.") or is_pattern(dotted):
                continue
            if dotted.split(".")[0] in ABSENT:
                continue  # not in the sandbox: nothing to watch
            obj = pkgutil.resolve_name(dotted)
            members = vars(obj).values() if isinstance(obj, type) else [obj]
            for member in members:
                member = getattr(member, "__func__", member)
                code = getattr(member, "__code__", None)
                if code is not None:
                    codes[code_key(code)] = dotted
                elif callable(member):
                    objects[id(member)] = dotted
            objects[id(obj)] = dotted
        return objects, codes, ops

    def of(self, exercise: str):
        """``(objects, codes, ops)`` the exercise forbids."""
        return self.by_exercise.get(exercise, ({}, {}, Ops()))


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


def profiler(objects, codes, seen):
    """A ``sys.setprofile`` function that reports forbidden Python and C functions."""

    def watch(frame, event, arg):
        if event == "call":
            name = codes.get(code_key(frame.f_code))
        elif event == "c_call":
            name = objects.get(id(arg))
        else:
            return
        if name is not None:
            seen.append(name)
            report("forbidden", name)

    return watch


class Watch(TorchDispatchMode):
    """Sees every ATen op below autograd: forbidden ops, and (when asked) the shape of every
    output. An op that autograd decomposes (``aten._scaled_dot_product_attention_math``) never
    reaches it: :class:`Guard` sees that one, when Python calls it.

    Do not give it ``_should_skip_dynamo()`` returning False (red team round 9 tried it and ruled
    against it): Dynamo could then trace this handler itself and hand it to a learner's own
    compiler backend. Its ``torch._disable_dynamo`` wrapper is resolved to the handler as written
    before the first call (worker._undisabled), as torch's own are, so no sandbox loads Dynamo
    (1.2 CPU-s): nothing compiles here (a learner's ``torch.compile`` is the identity), and were
    Dynamo loaded after all, it compiles no frame while a dispatch mode (this one) is on the
    stack. Left to import it on their first call, every exercise process paid for it: 20
    notebooks of lesson 04 took 118 s to grade instead of 9 s (measured)."""

    def __init__(self, ops, record, seen):
        super().__init__()
        self.ops, self.record, self.seen = ops, record, seen
        self.largest_numel, self.largest_shape, self.shapes, self.names = 0, (), [], set()
        self.floats: list[tuple] = []  # the shapes of the floating-point outputs

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func._schema.name
        forbidden = self.ops.get(name)
        if forbidden is not None:
            self.seen.append(forbidden)
            report("forbidden", forbidden)
        out = func(*args, **(kwargs or {}))
        if self.record:
            self.names.add(name.removeprefix("aten::"))
            for t in out if isinstance(out, tuple | list) else (out,):
                if isinstance(t, torch.Tensor):
                    shape = tuple(t.shape)
                    self.shapes.append(shape)
                    if t.is_floating_point():
                        self.floats.append(shape)
                    if t.numel() > self.largest_numel:
                        self.largest_numel, self.largest_shape = t.numel(), shape
        return out

    def trace(self) -> dict:
        """What was recorded, as the ``trace`` of a reply."""
        return {
            "largest_numel": self.largest_numel,
            "largest_shape": list(self.largest_shape),
            "shapes": [list(s) for s in self.shapes],
            "floats": [list(s) for s in self.floats],
            "ops": sorted(self.names),
        }


class Guard(TorchFunctionMode):
    """Sees every torch function, however it was reached (``torch.softmax``, ``x.softmax``...),
    and every ATen op called from Python (``torch.ops.aten.name``, its overloads, a lookup by
    ``getattr``), before autograd could decompose it."""

    def __init__(self, objects, ops, seen):
        super().__init__()
        self.objects, self.ops, self.seen = objects, ops, seen
        self.any_ops = bool(ops)  # (asked once: this runs on every torch call, profiled)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = self.objects.get(id(func))
        if name is None and self.any_ops:
            op = op_name(func)
            name = self.ops.function(func) if op is None else self.ops.get(op)
        if name is not None:
            self.seen.append(name)
            report("forbidden", name)
        return func(*args, **(kwargs or {}))

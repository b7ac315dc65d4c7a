"""Inside the sandbox: what each exercise forbids, and the watchers that see it being called.

Every forbidden call is written to the judge's socket the moment it happens (:data:`report`), so
no later rewriting of Python objects can hide it. Three watchers look at a learner call (see
:meth:`autograder.sandbox.inside.worker.LearnerNamespace.watched_call`): a profiler (Python
functions, by their code's file, line and name), :class:`Guard` (torch functions, however they
are reached) and :class:`Watch` (ATen ops, and when asked, the shape of every op's output).
"""

from __future__ import annotations

import pkgutil

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from autograder.sandbox.protocol import encode

# Packages that are absent from the sandbox: what an exercise forbids of them cannot be reached
# (the course's reference is forbidden to every exercise, and is simply not there).
ABSENT = ("course_lib",)


def code_key(code):
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
                    codes[code_key(code)] = dotted
                elif callable(member):
                    objects[id(member)] = dotted
            objects[id(obj)] = dotted
        return objects, codes, ops

    def of(self, exercise: str):
        """``(objects, codes, ops)`` the exercise forbids."""
        return self.by_exercise.get(exercise, ({}, {}, {}))


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

    def trace(self) -> dict:
        """What was recorded, as the ``trace`` of a reply."""
        return {
            "largest_numel": self.largest_numel,
            "largest_shape": list(self.largest_shape),
            "shapes": [list(s) for s in self.shapes],
            "ops": sorted(self.names),
        }


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

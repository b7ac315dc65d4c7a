"""An in-process stand-in for autograder.sandbox, used only until the real sandbox lands.

Same surface as the engine's ``Submission`` / ``RemoteObject`` (see the issue "Grading engine"),
but the learner's code runs in this process: fine for the course's own test submissions, never
for real learners.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from autograder.checks._compare import LearnerError
from autograder.registry import CheckFailure, all_exercises


class ForbiddenUsed(Exception):
    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


@dataclass
class Opaque:
    type_name: str
    repr: str


@dataclass
class Trace:
    shapes: list = field(default_factory=list)
    ops: set = field(default_factory=set)

    @property
    def largest_numel(self) -> int:
        return max((_numel(s) for s in self.shapes), default=0)

    @property
    def largest_shape(self) -> tuple:
        return max(self.shapes, key=_numel, default=())


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _resolve(name: str):
    if name.startswith("aten."):
        return None
    obj: Any = __import__(name.split(".")[0])
    for part in name.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


class _Forbid(TorchFunctionMode):
    def __init__(self, names):
        super().__init__()
        self.funcs = {}
        for n in names:
            f = _resolve(n)
            if f is not None:
                self.funcs[f] = n

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in self.funcs:
            raise ForbiddenUsed(self.funcs[func])
        return func(*args, **(kwargs or {}))


class _Dispatch(TorchDispatchMode):
    def __init__(self, forbid, trace):
        super().__init__()
        self.forbid = {n.removeprefix("aten.") for n in forbid if n.startswith("aten.")}
        self.trace = trace

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if name in self.forbid:
            raise ForbiddenUsed("aten." + name)
        out = func(*args, **(kwargs or {}))
        if self.trace is not None:
            self.trace.ops.add(name)
            for t in out if isinstance(out, (tuple, list)) else (out,):
                if isinstance(t, torch.Tensor):
                    self.trace.shapes.append(tuple(t.shape))
        return out


def _copy_in(x):
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, tuple):
        return tuple(_copy_in(y) for y in x)
    if isinstance(x, list):
        return [_copy_in(y) for y in x]
    if isinstance(x, dict):
        return {k: _copy_in(v) for k, v in x.items()}
    return x


def _copy_out(x):
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, (tuple, list)):
        return type(x)(_copy_out(y) for y in x)
    if isinstance(x, dict):
        return {k: _copy_out(v) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str, torch.dtype, torch.device)):
        return x
    return Opaque(type(x).__name__, repr(x)[:200])


class Submission:
    def __init__(self, source: str):
        self.ns: dict[str, Any] = {"__name__": "submission"}
        exec(compile(source, "<submission>", "exec"), self.ns)
        self.defined = frozenset(
            k for k, v in self.ns.items() if not k.startswith("_") and callable(v)
        )
        self.forbid: tuple[str, ...] = ()
        self.last_trace = Trace()

    def defines(self, name: str) -> bool:
        return name in self.defined

    def _run(self, fn, args, kwargs, watch):
        trace = Trace() if watch else None
        try:
            with _Forbid(self.forbid), _Dispatch(self.forbid, trace):
                out = fn(*_copy_in(args), **_copy_in(kwargs))
        except ForbiddenUsed:
            raise
        except Exception as e:  # noqa: BLE001
            raise LearnerError(type(e).__name__, str(e), traceback.format_exc()) from None
        if watch:
            self.last_trace = trace
        return out

    def call(self, name, *args, watch=False, **kwargs):
        return _copy_out(self._run(self.ns[name], args, kwargs, watch))

    def new(self, name, *args, **kwargs):
        return RemoteObject(self, self._run(self.ns[name], args, kwargs, False))


class RemoteObject:
    def __init__(self, sub: Submission, obj: Any):
        self._sub, self._obj = sub, obj

    def __call__(self, *args, watch=False, **kwargs):
        return _copy_out(self._sub._run(self._obj, args, kwargs, watch))

    def method(self, name, *args, watch=False, **kwargs):
        return _copy_out(self._sub._run(getattr(self._obj, name), args, kwargs, watch))

    def load_state_dict(self, state_dict):
        self._sub._run(self._obj.load_state_dict, (state_dict,), {}, False)

    def to(self, x):
        self._sub._run(self._obj.to, (x,), {}, False)

    def train(self, mode=True):
        self._sub._run(self._obj.train, (mode,), {}, False)

    def eval(self):
        self.train(False)

    def describe(self):
        o = self._obj
        is_module = isinstance(o, torch.nn.Module)
        d = {"type": type(o).__qualname__, "is_module": is_module, "children": {}}
        if not is_module:
            d.update(parameters={}, num_parameters=0)
            return d
        for attr, child in o.named_children():
            info = {"type": type(child).__module__ + "." + type(child).__qualname__}
            for key in ("in_features", "out_features", "num_embeddings", "embedding_dim"):
                if hasattr(child, key):
                    info[key] = getattr(child, key)
            if isinstance(child, torch.nn.Linear):
                info["bias"] = child.bias is not None
            if isinstance(child, torch.nn.LayerNorm):
                info["normalized_shape"] = tuple(child.normalized_shape)
            d["children"][attr] = info
        d["parameters"] = {n: list(p.shape) for n, p in o.named_parameters()}
        d["num_parameters"] = sum(p.numel() for p in o.parameters())
        return d

    def fit(self, tokens, steps, lr):
        model = self._obj

        def loop():
            opt = torch.optim.AdamW(model.parameters(), lr=lr)
            losses = []
            model.train()
            for _ in range(steps):
                logits = model(tokens)
                loss = torch.nn.functional.cross_entropy(
                    logits[:, :-1].reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1)
                )
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(float(loss))
            return losses

        return self._sub._run(loop, (), {}, False)


@dataclass
class Result:
    exercise: str
    passed: bool
    points: float
    max_points: float
    message: str
    mistake: str | None


def judge_source(source: str, only=None) -> list[Result]:
    sub = Submission(source)
    results = []
    for name, ex in all_exercises().items():
        if (only and name not in only) or not sub.defines(name):
            continue
        sub.forbid = ex.forbid
        try:
            ex.check(sub)
        except CheckFailure as f:
            results.append(Result(name, False, 0, ex.points, f.message, f.mistake))
        except ForbiddenUsed as f:
            results.append(Result(name, False, 0, ex.points, f"uses {f.what}", "uses-builtin"))
        except LearnerError as e:
            results.append(Result(name, False, 0, ex.points, f"raised {e}", None))
        else:
            results.append(Result(name, True, ex.points, ex.points, "", None))
    return results

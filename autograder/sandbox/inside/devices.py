"""Tensors created on the default device inside code that was given tensors: the worker-side half
of [created-on-cpu] for code that reads values.

The checks run code on the 'meta' device to see that new tensors follow the inputs' device, but
code that reads values (``lengths.tolist()``, a Python loop) cannot run on meta, so that part is
skipped, and ``torch.arange(L)`` inside a module's forward even passes on meta (``F.embedding``
accepts CPU indices with meta weights). Without a GPU, what can still be seen is *how* a tensor
was made and where it went: a factory (``torch.arange``, ``torch.tensor``, ``torch.ones``...)
called without ``device=`` puts it on the default device (the CPU) whatever device the inputs are
on. That is wrong only if the tensor (or one computed from it) then meets a tensor the code did
not make that way (an input, a parameter, a ``*_like``), or is returned: on a GPU both fail.
Moving it first (``.to(lengths.device)``, ``.to(x)``, ``.type_as(x)``, ``.cuda()``) is correct,
at the cost of a copy, and so is indexing a tensor with it (``weight[torch.arange(L)]``: index
tensors on the CPU may index a tensor on any device). Used in the sandbox worker around a call
whose arguments include a tensor::

    factories = DefaultDeviceFactories()   # before the call
    with factories:                        # around the learner's call, below the other modes
        value = fn(*args, **kwargs)
    problem = factories.check(value)       # after it: CreatedOnDefaultDevice | None

Tensors of 0 dims are allowed (a CPU scalar tensor mixes with tensors on any device, and
``masked_fill`` takes one as its value: on 'meta', whose kernel refuses it, it goes as a meta
scalar), and so are the ``*_like`` factories and ``Tensor.new_*`` (they follow their tensor). A
tensor moved to the CPU by name (``.cpu()``, ``.to("cpu")``) is followed as a factory's is: on a
GPU it is a copy on the CPU, which may meet other CPU tensors and go back with ``.to(x.device)``
(a mask computed on the CPU and moved, as lesson 04 allows); returned or met with the inputs'
tensors, it fails as :data:`MOVED_TO_CPU` says. On the CPU, where ``.cpu()`` gives back the very
same tensor, it gives a copy, as a GPU does, so that the input itself is not followed. On 'meta'
such a move has no data to copy: torch's error skips the rest of the meta section, as reading
values does. The error reaches the judge as a ``LearnerError`` of kind
``"CreatedOnDefaultDevice"``, named ``created-on-cpu`` by ``autograder.kit.calling``. Imports
nothing but torch and the protocol.
"""

from __future__ import annotations

import weakref

import torch
from torch.overrides import TorchFunctionMode

from autograder.sandbox.protocol import KEPT_ON_CPU, MOVED_TO_CPU

# Factories that put their result on the default device unless given device=.
FACTORIES = {
    torch.arange: "torch.arange",
    torch.tensor: "torch.tensor",
    torch.as_tensor: "torch.as_tensor",
    torch.ones: "torch.ones",
    torch.zeros: "torch.zeros",
    torch.empty: "torch.empty",
    torch.full: "torch.full",
    torch.eye: "torch.eye",
    torch.linspace: "torch.linspace",
    torch.logspace: "torch.logspace",
    torch.rand: "torch.rand",
    torch.randn: "torch.randn",
    torch.randint: "torch.randint",
    torch.tril_indices: "torch.tril_indices",
    torch.triu_indices: "torch.triu_indices",
}


class CreatedOnDefaultDevice(Exception):
    """The learner's code made a tensor without device= and used it with its inputs."""


MOVES = (torch.Tensor.to, torch.Tensor.cuda, torch.Tensor.type_as)  # type_as: to its device too
# Index tensors on the CPU may index a tensor on any device: "indices should be either on cpu or
# on the same device as the indexed tensor" (ATen's indexing), the result on that tensor's device.
INDEXING = (torch.Tensor.__getitem__, torch.Tensor.__setitem__)
MOVED = ".cpu()"  # what a tensor moved to the CPU by name is followed as (found: MOVED_TO_CPU)
MASKED_FILLS = (torch.masked_fill, torch.Tensor.masked_fill, torch.Tensor.masked_fill_)


def _moves(func, args, kwargs) -> bool:
    """Whether ``func(*args, **kwargs)`` sends a tensor to a device (not just to a dtype)."""
    if func is torch.Tensor.cuda or func is torch.Tensor.type_as:
        return True
    return kwargs.get("device") is not None or any(
        isinstance(a, (torch.device, str, torch.Tensor)) for a in args[1:]
    )


def _to_names_cpu(args, kwargs) -> bool:
    """Whether ``.to``'s arguments move a tensor to the CPU by name: the string "cpu" (a
    ``torch.device`` may be ``x.device``, the inputs' own: not by name)."""
    device = kwargs.get("device", args[1] if len(args) > 1 else None)
    return isinstance(device, str) and torch.device(device).type == "cpu"


def _meta_scalar_value(func, args, kwargs):
    """``masked_fill``'s arguments with a 0-dim CPU value sent to 'meta' (a GPU takes it as it
    is; the meta kernel refuses it: "Expected `value` to be on same device as `a`")."""
    if func not in MASKED_FILLS:
        return args, kwargs
    value = kwargs.get("value", args[2] if len(args) > 2 else None)
    if not (isinstance(value, torch.Tensor) and value.dim() == 0 and value.device.type == "cpu"):
        return args, kwargs
    if "value" in kwargs:
        return args, {**kwargs, "value": value.to("meta")}
    return (*args[:2], value.to("meta"), *args[3:]), kwargs


def _tensors(x, depth=0) -> list[torch.Tensor]:
    """The tensors in ``x``: itself, or those in its tuples, lists and dicts, three levels deep,
    in order. A list, built with as few calls as can be: this runs on every torch call under the
    forbidden-call profiler, which is called for each (a generator's every step was a call)."""
    if isinstance(x, torch.Tensor):
        return [x]
    if depth >= 3:
        return []
    if isinstance(x, dict):
        x = x.values()
    elif not isinstance(x, tuple | list):
        return []
    found = []
    for y in x:
        if isinstance(y, torch.Tensor):
            found += (y,)
        elif depth < 2 and isinstance(y, tuple | list | dict):
            found += _tensors(y, depth + 1)
    return found


class DefaultDeviceFactories(TorchFunctionMode):
    """Follows each tensor of 1 or more dims made by a factory without ``device=`` (and every
    tensor computed from such tensors alone) until it is moved to a device; records the factory
    when one meets another tensor of 1 or more dims, or is returned (see :meth:`check`)."""

    def __init__(self, inputs=()):
        super().__init__()
        self.found: list[str] = []
        self._made: dict[int, tuple[weakref.ref, str]] = {}  # id -> (tensor, its factory)
        self._given = {id(t) for t in _tensors(inputs)}  # the call's own tensors, any device

    def _factory_of(self, t: torch.Tensor) -> str | None:
        entry = self._made.get(id(t))
        return entry[1] if entry is not None and entry[0]() is t else None

    def _mark(self, out, name: str) -> None:
        for t in _tensors(out):
            if t.dim():
                self._made[id(t)] = (weakref.ref(t), name)

    def _record(self, names) -> None:
        for name in names:
            if name not in self.found:
                self.found.append(name)

    def _other_device(self, func, args, kwargs, tensors, factories) -> None:
        """Raise when, with inputs on 'meta' (one of ``tensors`` is), a CPU tensor of 1 or more
        dims that the call was not given and no factory here made (those are named by their
        factory) meets a meta tensor."""
        if func in (torch.Tensor.cpu, torch.Tensor.to) and args[0].device.type == "meta":
            return  # to the CPU: no data to copy, which torch says (and the meta part ends)
        for t, made in zip(tensors, factories, strict=True):
            if t.device.type == "cpu" and made is None and id(t) not in self._given:
                raise CreatedOnDefaultDevice(KEPT_ON_CPU)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = FACTORIES.get(func)
        if name is not None:
            out = func(*args, **kwargs)
            if kwargs.get("device") is None:
                self._mark(out, name)
            return out
        seen = (args, kwargs)
        if func in INDEXING and self._factory_of(args[0]) is None:
            seen = (args[:1] + args[2:], kwargs)  # its indices may be on the CPU, not the reverse
        tensors, factories, on_meta = [], [], False  # (one loop: see _tensors)
        for t in _tensors(seen):
            if t.dim():
                tensors += (t,)
                factories += (self._factory_of(t),)
                on_meta = on_meta or t.device.type == "meta"
        if on_meta:
            self._other_device(func, args, kwargs, tensors, factories)
            args, kwargs = _meta_scalar_value(func, args, kwargs)
        elif tensors and (  # moved to the CPU by name: .cpu(), .to("cpu")
            func is torch.Tensor.cpu or func is torch.Tensor.to and _to_names_cpu(args, kwargs)
        ):
            out = func(*args, **kwargs)
            if isinstance(out, torch.Tensor) and out.dim():
                if out is args[0]:  # on the CPU already: a copy, as from a GPU
                    out = out.clone()
                self._mark(out, self._factory_of(args[0]) or MOVED)
            return out
        out = func(*args, **kwargs)
        made = [f for f in factories if f is not None]
        if not made:
            return out
        if func in MOVES and _moves(func, args, kwargs):
            for t in _tensors(out):  # on the CPU, .to(cpu) gives back the very same tensor
                self._made.pop(id(t), None)
            other = next((a for a in args[1:] if isinstance(a, torch.Tensor)), None)
            if other is not None and (where := self._factory_of(other)):  # .to(t), .type_as(t)
                self._mark(out, where)  # to where t is: the CPU
            return out
        if None in factories:  # a CPU tensor met a tensor on the inputs' device
            self._record(made)
        else:
            self._mark(out, made[0])
        return out

    def check(self, value=None) -> CreatedOnDefaultDevice | None:
        """The problem, if a followed tensor met another tensor or is part of ``value``."""
        returned = [n for n in map(self._factory_of, _tensors(value)) if n is not None]
        if returned:
            self._record(returned)
        if not self.found:
            return None
        made = [name for name in self.found if name != MOVED]
        if not made:
            return CreatedOnDefaultDevice(MOVED_TO_CPU)
        what = "returned it" if returned else "used it with your inputs' tensors"
        return CreatedOnDefaultDevice(
            f"a tensor was created on the CPU by {', '.join(made)} without device= (in "
            f"your code or in a function it calls), whatever device your inputs are on, and "
            f"your code {what}: on a GPU that fails (create it with device=x.device, or move it "
            "with .to(x.device) first)"
        )


def has_tensor(args: tuple, kwargs: dict) -> bool:
    """Whether a call was given a tensor (only then must new tensors follow one)."""

    def walk(x, depth=0):
        if isinstance(x, torch.Tensor):
            return True
        if depth < 3 and isinstance(x, (tuple, list)):
            return any(walk(y, depth + 1) for y in x)
        if depth < 3 and isinstance(x, dict):
            return any(walk(y, depth + 1) for y in x.values())
        return False

    return walk(args) or walk(kwargs)

"""Tensors created on the default device inside code that was given tensors: the worker-side half
of [created-on-cpu] for code that reads values.

The checks run code on the 'meta' device to see that new tensors follow the inputs' device, but
code that reads values (``lengths.tolist()``, a Python loop) cannot run on meta, so that part is
skipped, and ``torch.arange(L)`` inside a module's forward even passes on meta (``F.embedding``
accepts CPU indices with meta weights). Without a GPU, what can still be seen is *how* a tensor
was made: a factory (``torch.arange``, ``torch.tensor``, ``torch.ones``...) called without
``device=`` puts it on the default device (the CPU) whatever device the inputs are on. Used in
the sandbox worker around a call whose arguments include a tensor::

    factories = DefaultDeviceFactories()   # before the call
    with factories:                        # around the learner's call, inside the other modes
        value = fn(*args, **kwargs)
    problem = factories.check()            # after it: CreatedOnDefaultDevice | None

Tensors of 0 dims are allowed (a CPU scalar tensor mixes with tensors on any device), and so are
the ``*_like`` factories and ``Tensor.new_*`` (they follow their tensor). The error reaches the
judge as a ``LearnerError`` of kind ``"CreatedOnDefaultDevice"``, named ``created-on-cpu`` by
``autograder.kit.calling``. Imports nothing but torch.
"""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode

KIND = "CreatedOnDefaultDevice"

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
    """The learner's code made a tensor without device= while it was given tensors."""


class DefaultDeviceFactories(TorchFunctionMode):
    """Records each factory call without ``device=`` that made a tensor of 1 or more dims."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = FACTORIES.get(func)
        if name and kwargs.get("device") is None and isinstance(out, torch.Tensor) and out.dim():
            if name not in self.found:
                self.found.append(name)
        return out

    def check(self) -> CreatedOnDefaultDevice | None:
        if not self.found:
            return None
        return CreatedOnDefaultDevice(
            f"{', '.join(self.found)} was called without device=, so it made a tensor on the "
            "CPU whatever device your inputs are on"
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

"""Measure the memory that torch code really allocates, op by op (lesson 09, tests, bench).

:class:`MemoryTracker` is a ``TorchDispatchMode``: every aten op run inside ``with`` passes
through it, so it sees every tensor that is created, on any device (also ``cpu``, where torch
has no memory statistics).  It counts the bytes of each new storage while a Python tensor still
refers to it, and records the maximum: the peak memory of the code in the block, beyond the
inputs that existed before it.  It also remembers the largest tensor shape it saw.

    with MemoryTracker() as tracker:
        out = tiled_attention(q, k, v)
    print(tracker.peak_bytes, tracker.largest_shape)

Run it under ``torch.no_grad()``: tensors saved for backward are kept alive by C++, out of its
sight.  Buffers allocated inside one fused kernel are not seen either.
"""

import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

__all__ = ["MemoryTracker"]


class MemoryTracker(TorchDispatchMode):
    """Peak bytes of live tensor storage created inside the ``with`` block."""

    def __init__(self):
        super().__init__()
        self.live_bytes = 0
        self.peak_bytes = 0
        self.largest_numel = 0
        self.largest_shape: tuple[int, ...] = ()
        self._refs: dict[tuple, int] = {}  # storage key -> number of live tensors using it
        self._sizes: dict[tuple, int] = {}  # storage key -> bytes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        inputs = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)]
        input_keys = {_storage_key(a) for a in inputs}
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self._track(t, input_keys)
        return out

    def _track(self, t: torch.Tensor, input_keys: set) -> None:
        if t.numel() > self.largest_numel:
            self.largest_numel, self.largest_shape = t.numel(), tuple(t.shape)
        if t.device.type == "meta":
            return  # no storage to count
        key = _storage_key(t)
        if key not in self._refs:
            if key in input_keys:
                return  # a view of (or in-place write to) a tensor made before the block
            storage = t.untyped_storage()
            self._refs[key] = 0
            self._sizes[key] = storage.nbytes()
            self.live_bytes += storage.nbytes()
            self.peak_bytes = max(self.peak_bytes, self.live_bytes)
        self._refs[key] += 1
        weakref.finalize(t, self._release, key)

    def _release(self, key: tuple) -> None:
        self._refs[key] -= 1
        if self._refs[key] == 0:
            self.live_bytes -= self._sizes.pop(key)
            del self._refs[key]


def _storage_key(t: torch.Tensor) -> tuple:
    if t.device.type == "meta":
        return (t.device, id(t))
    return (t.device, t.untyped_storage().data_ptr())

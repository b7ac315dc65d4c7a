"""Lesson 05: count the matrix products a computation asks for, and its longest chain of them.

:class:`CountMatrixProducts` is a ``torch.overrides.TorchFunctionMode``: inside its ``with`` block
it sees every torch function called on tensors. It counts the matrix products (``@``,
``matmul``, ``linear``, ``einsum``, ``bmm``, ``mm``, ``baddbmm``) and gives each tensor a *depth*:
how many products in a row it took to make it (the largest depth among the op's inputs, plus
one if the op is a product). The longest chain, ``chain``, is the largest depth seen: the number
of products that had to wait for one another, however many processors there are.

It watches Python-level torch calls only: a product done inside a fused C++ kernel, or inside a
module that calls no torch function per product, is not seen. Lesson 05 uses it on an RNN
written by hand and on plain attention, both made of visible products.
"""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode

#: The names of the torch functions counted as one matrix product each.
PRODUCTS = frozenset(
    {"__matmul__", "__rmatmul__", "matmul", "linear", "einsum", "bmm", "mm", "baddbmm"}
)


class CountMatrixProducts(TorchFunctionMode):
    """Inside a ``with`` block, count matrix products and measure their longest chain.

    Attributes:
        count: how many matrix products were called.
        chain: the longest chain of products in which each one needs the result of the one
            before (0 when there was no product).

    Example::

        with CountMatrixProducts() as counter:
            (x @ w1) @ w2
        counter.count, counter.chain  # (2, 2)
    """

    def __init__(self):
        super().__init__()
        self.count, self.chain = 0, 0
        self._depth: dict[int, int] = {}  # id(tensor) -> products in a row that made it
        self._kept: list[torch.Tensor] = []  # keeps the tensors alive, so no id is reused

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        inputs = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
        depth = max((self._depth.get(id(t), 0) for t in inputs), default=0)
        if getattr(func, "__name__", "") in PRODUCTS:
            self.count, depth = self.count + 1, depth + 1
        if isinstance(out, torch.Tensor):
            self._depth[id(out)], self.chain = depth, max(self.chain, depth)
            self._kept.append(out)
        return out

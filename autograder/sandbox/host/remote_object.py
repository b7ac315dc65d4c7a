"""``RemoteObject``: an object living in a learner's sandbox, as the judge holds it (a handle in a
:class:`~autograder.sandbox.host.submission.Submission`)."""

from __future__ import annotations

from typing import Any

from autograder.sandbox.protocol import Request


class RemoteObject:
    """An object (usually an ``nn.Module``) living in the sandbox, known by its handle."""

    def __init__(self, sub: Any, handle: int, name: str):  # sub: its Submission
        self._sub, self._handle, self.name = sub, handle, name

    def __call__(self, *args, watch: bool = False, check_devices: bool = True, **kwargs) -> Any:
        return self._sub._request(
            Request(
                "call", self._handle, args=args, kwargs=kwargs, watch=watch, devices=check_devices
            )
        )

    def method(self, name: str, *args, watch: bool = False, **kwargs) -> Any:
        """Call the object's method ``name`` (a dotted path reaches a sub-object's method)."""
        return self._sub._request(
            Request("call", self._handle, name, args=args, kwargs=kwargs, watch=watch)
        )

    def attr(self, name: str) -> Any:
        """The value of the object's attribute ``name`` (a dotted path), not called."""
        return self._sub._request(Request("get", self._handle, name))

    def apply(self, helper: str, *args, **kwargs) -> Any:
        """``helper(obj, *args, **kwargs)`` in the sandbox, where ``helper`` is a function of
        :mod:`autograder.sandbox.inside.remote` (e.g. ``apply("fit", tokens, 40, 3e-3)``).
        ``apply("peak_memory", *args)``: ``[obj(*args), bytes]``, measured from outside the
        learner's processes (:meth:`Submission.peak_memory`)."""
        if helper == "peak_memory":
            return list(self._sub.peak_memory(self._handle, *args, **kwargs))
        return self._sub._request(
            Request("apply", self._handle, args=args, kwargs=kwargs, helper=helper)
        )

    def apply_to_method(self, method: str, helper: str, *args, **kwargs) -> Any:
        """``helper(obj.<method>, *args, **kwargs)`` in the sandbox: a helper given one of the
        object's bound methods (e.g. ``apply_to_method("append", "gradients", ...)``)."""
        return self._sub._request(
            Request("apply", self._handle, method, args=args, kwargs=kwargs, helper=helper)
        )

    def to(self, dtype_or_device) -> None:
        self.method("to", dtype_or_device)

    def train(self, mode: bool = True) -> None:
        self.method("train", mode)

    def eval(self) -> None:
        self.method("eval")

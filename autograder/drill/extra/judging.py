"""Judging the drills beyond the course's exercises: the kit's calls and comparisons, with this
package's own catalogue of mistakes (:mod:`.mistakes`), in the same sandbox as every check.

These drills are not rows of the course contract, so they are not in the registry: each one is a
list of :class:`autograder.core.registry.Gradable` built here (a name the candidate defines, its
check, what it forbids), judged by :func:`autograder.core.judge.judge_one` in one sandbox per file.
"""

from __future__ import annotations

import textwrap
from typing import Any

import torch

from autograder.core.mistakes import MISTAKES as COURSE
from autograder.drill.extra.mistakes import IN_DRILLS
from autograder.drill.extra.mistakes import MISTAKES as OWN
from autograder.i18n import N_, _, fill, frames, noun
from autograder.kit.calling import ASSERT_ACCEPTED, Call, Mutants, diagnose_error
from autograder.kit.compare import close_mask, diagnose, excerpt
from autograder.kit.exercise import CheckFailure
from autograder.kit.notes import note
from autograder.kit.text import first_line, fmt_dtype, fmt_row, fmt_shape, fmt_type, fmt_value
from autograder.sandbox.host.replies import LearnerError
from autograder.sandbox.protocol import Request


class _Shown:
    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _brief(x: Any) -> Any:
    """A dict or tuple of tensors shown by their shapes (a params dict is not 100 lines)."""
    if isinstance(x, dict):
        return _Shown("{" + ", ".join(f"{k}: {fmt_value(v)}" for k, v in x.items()) + "}")
    if isinstance(x, torch.Tensor) and not x.is_floating_point() and 8 < x.numel() <= 40:
        return _Shown(f"tensor({x.tolist()})")  # token ids: small enough to read
    if isinstance(x, tuple | list) and any(isinstance(v, torch.Tensor) for v in x):
        return _Shown("(" + ", ".join(fmt_value(v) for v in x) + ")")
    return x


class BriefCall(Call):
    """A Call whose message shows dicts and tuples of tensors by their shapes, and token ids
    (an integer tensor of at most 40) by value."""

    def __str__(self) -> str:
        shown = Call(
            self.name, *map(_brief, self.args), **{k: _brief(v) for k, v in self.kwargs.items()}
        )
        shown.params = self.params
        return str(shown)


def _is(what: str) -> str:
    return "are" if what.split()[-1] in ("probabilities", "logits", "tokens", "weights") else "is"


def _has(what: str) -> str:
    return "has" if _is(what) == "is" else "have"


def title_and_hint(mistake: str | None, exercise: str = ""):
    """The catalogue entry of ``mistake``: in the drill's words for ``exercise`` where the course's
    speak of another exercise, else this package's, else the course's (None if none)."""
    if mistake is None:
        return None
    return IN_DRILLS.get((mistake, exercise)) or OWN.get(mistake) or COURSE.get(mistake)


def fail(message: str, mistake: str | None = None) -> CheckFailure:
    if mistake is not None and title_and_hint(mistake) is None:
        raise KeyError(f"unknown mistake id {mistake!r}")  # a typo in a check
    return CheckFailure(message, mistake=mistake)


def run(c: Call, target: Any, mutants: Mutants = ()) -> Any:
    """``c`` run on ``target`` (a Submission or a remote object); an error names its mistake."""
    try:
        return c.invoke(target)
    except LearnerError as err:
        mistake = diagnose_error(c, err, mutants)
        where = ""
        if not mistake and err.traceback:
            where = "\n" + "\n".join(err.traceback.splitlines()[-3:])
        raised = _("{call} raised {error}: {message}").format(
            call=c, error=err.kind, message=first_line(err.message)
        )
        raise fail(raised + frames(where), mistake) from None


def _normalised(mutants: Mutants, norm) -> Mutants:
    return tuple((m, lambda *a, fn=fn, **k: norm(fn(*a, **k))) for m, fn in mutants)


def expect(
    out: Any,
    want: torch.Tensor,
    c: Call,
    mutants: Mutants = (),
    *,
    what: str = "the output",
    dtype: torch.dtype | None = None,
    tol: tuple[float, float] | None = None,
    norm=None,
    norm_note: str = "",
) -> torch.Tensor:
    """``out`` must be a tensor of ``want``'s shape (and ``dtype``) whose values match ``want``
    (float64) within the dtype's tolerance. ``norm`` maps both sides (and the mutants) to what is
    compared, for outputs fixed only up to something (ALiBi's per-row constant); a failure then
    says so (``norm_note``: what was done to both sides) and shows the row as returned."""
    shown = noun(what)
    if not isinstance(out, torch.Tensor):
        raise fail(
            _("{call} returned {type} for {what}; expected a tensor of shape {shape}.").format(
                call=c, type=fmt_type(out), what=shown, shape=fmt_shape(want.shape)
            ),
            diagnose(out, c, mutants),
        )
    if tuple(out.shape) != tuple(want.shape):
        said = (
            _("{call}: {what} has shape {shape}, expected {expected}.")
            if _is(what) == "is"
            else _("{call}: {what} have shape {shape}, expected {expected}.")
        )
        raise fail(
            said.format(
                call=c, what=shown, shape=fmt_shape(out.shape), expected=fmt_shape(want.shape)
            ),
            diagnose(out, c, mutants),
        )
    if dtype is not None and out.dtype != dtype:
        said = (
            _("{call}: {what} has dtype {dtype}, expected {expected} (the inputs' dtype).")
            if _is(what) == "is"
            else _("{call}: {what} have dtype {dtype}, expected {expected} (the inputs' dtype).")
        )
        raise fail(
            said.format(call=c, what=shown, dtype=fmt_dtype(out.dtype), expected=fmt_dtype(dtype)),
            "output-dtype-changed",
        )
    yours, expected = (out, want) if norm is None else (norm(out), norm(want))
    if bool(close_mask(yours, expected, tol).all()):
        return out
    named = mutants if norm is None else _normalised(mutants, norm)
    mistake = diagnose(yours, c, named, tol=tol)
    nan = yours.is_floating_point() and bool(yours.isnan().any())
    if _is(what) == "is":  # the kit's own words (kit.compare.expect_close)
        head = _("{call}: {what} contains NaN") if nan else _("{call}: {what} is wrong")
    else:
        head = _("{call}: {what} contain NaN") if nan else _("{call}: {what} are wrong")
    message = f"{head.format(call=c, what=noun(what))}; {excerpt(yours, expected, tol)}"
    if norm is not None:
        message += "\n" + _as_returned(out, yours, expected, tol, norm_note)
    raise fail(message, mistake)


def _as_returned(out, yours, expected, tol, note: str) -> str:
    """Under a normalised comparison: what was done to both rows shown (``note``, a message
    marked N_), and the row as the function returned it (the shown one is not)."""
    index = [int(i) for i in (~close_mask(yours, expected, tol)).nonzero()[0]]
    row = tuple(index[:-1])
    label = f"output[{', '.join(map(str, row))}]" if row else "output"
    text = _("Both rows above are shown {how}; your {label} as returned is {row}.").format(
        how=_(note or N_("normalised")), label=label, row=fmt_row(out[row].double().tolist())
    )
    return textwrap.indent(fill(text, 84), "  ")


def expect_raises(c: Call, target: Any, why: str) -> None:
    """The call must raise ValueError (an ``assert``'s AssertionError is accepted too, with the
    note the course's checks leave); ``why`` is marked N_ where it is written (shown in the
    current language)."""
    try:
        c.invoke(target)
    except LearnerError as err:
        if err.kind == "AssertionError":
            note(_(ASSERT_ACCEPTED).format(call=c))
        if err.kind in ("ValueError", "AssertionError"):
            return
        raise fail(
            _("{call} raised {error}: {message}; expected a {kind} ({why}).").format(
                call=c,
                error=err.kind,
                message=first_line(err.message),
                kind="ValueError",
                why=_(why),
            )
        ) from None
    raise fail(
        _("{call} returned without an error; expected a {kind} ({why}).").format(
            call=c, kind="ValueError", why=_(why)
        ),
        "no-value-error",
    )


def gradients(sub, target: Any, weights: torch.Tensor, *args, **kwargs) -> dict:
    """The gradients of ``(target(*args, **kwargs)[0 if a tuple] * weights).sum()``, computed in
    the sandbox next to the candidate's code (``autograder.sandbox.inside.remote.gradients``,
    which the course's checks share). ``target``: a function's name or a remote object."""
    if isinstance(target, str):
        req = Request("apply", target, args=(args, kwargs, weights, 0), helper="gradients")
        return sub._request(req)
    return target.apply("gradients", args, kwargs, weights, 0)


def expect_gradients(got: dict, want: dict, label: str, mistake: str | None = None) -> None:
    """Each expected gradient (float64) must be there and match; a missing one means the output
    has no gradient path to it (a ``.detach()``, ``torch.no_grad()`` or ``.item()`` on the way)."""
    for name, w in want.items():
        g = got.get(name)
        shown = _argument(name)
        if g is None:
            raise fail(
                _(
                    "{label}: no gradient reaches {name}: something on the way cuts the graph "
                    "(.detach(), torch.no_grad(), .item(), a new tensor built from values)."
                ).format(label=label, name=shown),
                mistake,
            )
        if tuple(g.shape) != tuple(w.shape) or not bool(close_mask(g, w, (1e-4, 1e-3)).all()):
            detail = (
                excerpt(g, w, (1e-4, 1e-3))
                if tuple(g.shape) == tuple(w.shape)
                else _("shape {shape}, expected {expected}").format(
                    shape=fmt_shape(g.shape), expected=fmt_shape(w.shape)
                )
            )
            said = _("{label}: the gradient of {name} is wrong; {detail}")
            raise fail(said.format(label=label, name=shown, detail=detail), mistake)


def _argument(name: str) -> str:
    """A gradient's name as shown: "argument 2" in the current language, a parameter's as it is."""
    if name.startswith("argument "):
        return _("argument {n}").format(n=name.removeprefix("argument "))
    return name


def float64_gradients(fn, weights, *args, params: dict | None = None) -> dict:
    """The float64 gradients ``gradients`` should return: of float ``args`` ("x0", "x1"...) and of
    ``params`` (name -> float64 tensor the function uses)."""
    args = [
        a.detach().double().requires_grad_()
        if isinstance(a, torch.Tensor) and a.is_floating_point()
        else a
        for a in args
    ]
    ps = {n: p.detach().double().requires_grad_() for n, p in (params or {}).items()}
    out = fn(*args, **ps)
    (out * weights.double()).sum().backward()
    found = {
        f"argument {i + 1}": a.grad
        for i, a in enumerate(args)
        if isinstance(a, torch.Tensor) and a.grad is not None
    }
    return found | {n: p.grad for n, p in ps.items()}


def flat_gradients(got: dict) -> dict:
    """``gradients``' reply as one dict: "argument 1", "argument 2"... then the parameters."""
    out = {f"argument {i + 1}": g for i, g in enumerate(got.get("args", [])) if g is not None}
    return out | {n: g for n, g in got.get("params", {}).items() if g is not None}

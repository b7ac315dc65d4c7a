"""Lesson 01: projections. ``project_qkv`` and ``QKVProjection``.

B batch, L positions, D d_model, K d_k, V d_v.
"""

from __future__ import annotations

from itertools import permutations, product

import torch

from autograder.kit import (
    Call,
    CheckFailure,
    construct,
    exercise,
    expect_close,
    expect_layers,
    expect_meta,
    expect_tuple,
    fail,
    fmt_dtype,
    generator,
    linear_state,
    load_weights,
    low_precision_dtypes,
    on_meta,
    randn,
)
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    wide_call,
    with_rules,
)
from autograder.kit.module_calls import expect_module_calls

NAMES = ("q", "k", "v")


def _swapped(outputs_of):
    """qkv-order-swapped: (q, k, v) in another order, or one of them from another's weights
    (v from w_k...): every assignment of the three projections to the outputs but the right one,
    the reorderings first."""
    wrong = [p for p in permutations(range(3)) if p != (0, 1, 2)]
    wrong += [p for p in product(range(3), repeat=3) if len(set(p)) < 3]
    return tuple(
        ("qkv-order-swapped", lambda *a, p=p: tuple(outputs_of(*a)[i] for i in p)) for p in wrong
    )


def _reversed(x):
    """x.T: for more than 2 dims it reverses them all (deprecated, with a warning)."""
    return x.permute(*range(x.dim() - 1, -1, -1))


def _project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


PROJECT_MUTANTS = (
    ("project-transposed-weights", lambda x, a, b, c: (x @ a.T, x @ b.T, x @ c.T)),
    # x.T reverses every dim of a batch: right for 2-D x, a shape error for 3-D
    ("matrix-only-op", lambda x, *ws: tuple(_reversed(w.T @ _reversed(x)) for w in ws)),
    ("weight-on-the-left", lambda x, *ws: tuple(w @ x for w in ws)),
    ("weight-on-the-left", lambda x, *ws: tuple(w.T @ x for w in ws)),
    *_swapped(_project),
)


def _expect_qkv(out, want, c, mutants, dtype):
    out = expect_tuple(out, c, 3, "a tuple (q, k, v)")
    for name, o, w in zip(NAMES, out, want, strict=True):
        expect_close(o, w, c, what=name, dtype=dtype, mutants=mutants, whole=out)


@exercise("project_qkv")
def check_project_qkv(sub) -> None:
    g = generator(1)
    cases = [((3, 4), (4, 6), (4, 6), (4, 6)), ((2, 5, 4), (4, 3), (4, 3), (4, 6))]
    cases.append(((2, 2, 3, 4), (4, 3), (4, 3), (4, 5)))  # two leading dims: bmm, 'bld' einsum
    cases.append(((2, 1, 2, 3, 4), (4, 3), (4, 3), (4, 5)))  # any number of leading dims
    cases.append(((2, 3, 4), (4, 4), (4, 4), (4, 4)))  # square weights: only values tell w from w.T
    for xs, *ws in cases:  # d_model != d_k (a transposed weight can't run), then batched
        x, w = randn(g, *xs), [randn(g, *s) for s in ws]
        c = Call("project_qkv", x, *w)
        try:
            out = c.run(sub, mutants=PROJECT_MUTANTS)
            want = _project(x.double(), *(t.double() for t in w))
            _expect_qkv(out, want, c, PROJECT_MUTANTS, None)
        except CheckFailure as failure:
            if failure.mistake is not None:
                raise
            raise fail(failure.message, _square_diagnosis(sub)) from None
    x = randn(g, 3, 2, 4).transpose(0, 1)  # a view that is not contiguous: no .view() on it
    w = [randn(g, 4, d) for d in (3, 3, 5)]
    c = Call("project_qkv", x, *w)
    want = _project(x.double(), *(t.double() for t in w))
    _expect_qkv(c.run(sub, mutants=PROJECT_MUTANTS), want, c, PROJECT_MUTANTS, None)
    for dtype in low_precision_dtypes():
        x, w = randn(g, 2, 3, 4, dtype=dtype), [randn(g, 4, d, dtype=dtype) for d in (3, 3, 5)]
        c = Call("project_qkv", x, *w)
        want = _project(x.double(), *(t.double() for t in w))
        _expect_qkv(c.run(sub), want, c, (), dtype)
    with on_meta():  # meta tensors have shapes but no data
        x, w = (
            torch.empty(2, 3, 4, device="meta"),
            [torch.empty(4, d, device="meta") for d in (3, 3, 5)],
        )
        c = Call("project_qkv", x, *w)
        out = expect_tuple(c.run(sub), c, 3, "a tuple (q, k, v)")
        for name, o, d in zip(NAMES, out, (3, 3, 5), strict=True):
            expect_meta(o, c, (2, 3, d), torch.float32, what=name)


def _square_diagnosis(sub) -> str | None:
    """The mistake that shows in the values when the weights are square (d_model = d_k), where a
    transposed weight runs (an einsum with its indices swapped raises its own error otherwise)."""
    g = generator(11)
    x, w = randn(g, 3, 4), [randn(g, 4, 4) for _ in NAMES]
    c = Call("project_qkv", x, *w)
    try:
        out = c.run(sub, mutants=PROJECT_MUTANTS)
        _expect_qkv(out, _project(x.double(), *(t.double() for t in w)), c, PROJECT_MUTANTS, None)
    except CheckFailure as failure:
        return failure.mistake
    return None


def _qkv_layers(d_model, d_k, d_v):
    return {
        f"w_{n}": {"type": "Linear", "in_features": d_model, "out_features": d, "bias": False}
        for n, d in zip(NAMES, (d_k, d_k, d_v), strict=True)
    }


def qkv_module_mutants(state):
    """Mistakes of a module computing (q, k, v) with nn.Linear layers w_q, w_k, w_v."""
    ws = [state[f"w_{n}.weight"].double() for n in NAMES]

    params = [w.clone().requires_grad_() for w in ws]  # as parameters: torch's error messages

    def outputs(x):
        return tuple(x @ w.T for w in ws)

    def of_params(fn):
        return lambda x: tuple(fn(w, x.to(w.dtype)).detach() for w in params)

    return (
        ("project-transposed-weights", lambda x: tuple(x @ w for w in ws)),
        ("matrix-only-op", of_params(lambda w, x: _reversed(w @ _reversed(x)))),  # x.T
        ("weight-on-the-left", of_params(lambda w, x: w @ x)),
        ("weight-on-the-left", of_params(lambda w, x: w.T @ x)),
        *_swapped(outputs),
    )


@exercise("QKVProjection")
def check_qkv_projection(sub) -> None:
    g = generator(2)
    for d_model, d_k, d_v in ((4, 6, 6), (6, 3, 5)):  # d_model != d_k
        obj, label = construct(sub, "QKVProjection", d_model, d_k, d_v)
        expect_layers(
            obj, label, _qkv_layers(d_model, d_k, d_v), bias_mistake="projection-has-bias"
        )
        state = {}
        for n, d in zip(NAMES, (d_k, d_k, d_v), strict=True):
            state |= linear_state(g, f"w_{n}", d_model, d, bias=False)
        load_weights(obj, state, label, bias_mistake="projection-has-bias")
        mutants = qkv_module_mutants(state)
        for x in (randn(g, 3, d_model), randn(g, 2, 3, d_model)):  # x.T works only for 2-D
            c = Call(label, x, params="forward")
            want = tuple(x.double() @ state[f"w_{n}.weight"].double().T for n in NAMES)
            _expect_qkv(c.run(obj, mutants=mutants), want, c, mutants, torch.float32)
    for dtype in low_precision_dtypes():
        obj.to(dtype)
        x = randn(g, 2, 3, d_model, dtype=dtype)
        c = Call(f"{label}.to({fmt_dtype(dtype)})", x, params="forward")
        want = tuple(x.double() @ state[f"w_{n}.weight"].to(dtype).double().T for n in NAMES)
        _expect_qkv(c.run(obj), want, c, (), dtype)
    with on_meta():  # meta tensors have shapes but no data
        obj.to(torch.float32)
        obj.to("meta")
        c = Call(label + ".to('meta')", torch.empty(2, 3, d_model, device="meta"), params="forward")
        out = expect_tuple(c.run(obj), c, 3, "a tuple (q, k, v)")
        for name, o, d in zip(NAMES, out, (d_k, d_k, d_v), strict=True):
            expect_meta(o, c, (2, 3, d), torch.float32, what=name)


def _rules_project_qkv(sub) -> None:
    g = generator(101)
    x, w_q, w_k, w_v = randn(g, 1, 1, 4), randn(g, 4, 3), randn(g, 4, 3), randn(g, 4, 2)
    c = Call("project_qkv", x, w_q, w_k, w_v)
    expect_contract_rules(sub, c, ((1, 1, 3), (1, 1, 3), (1, 1, 2)), output=None)
    wide = wide_call("project_qkv", g, (2, 3, 4), (4, 3), (4, 3), (4, 2))
    expect_true_gradients(sub, wide)  # x reaches the output by three paths


def _rules_qkv_projection(sub) -> None:
    obj, label = construct(sub, "QKVProjection", 4, 3, 2)
    c = Call(label, randn(generator(102), 1, 1, 4), params="forward")
    expect_contract_rules(obj, c, ((1, 1, 3), (1, 1, 3), (1, 1, 2)), output=None)
    expect_true_gradients(obj, wide_call(label, 102, (2, 3, 4), params=c))
    expect_module_calls(sub, "QKVProjection", (4, 3, 2), (2, 4, 4))


check_project_qkv = with_rules(check_project_qkv, _rules_project_qkv)
check_qkv_projection = with_rules(check_qkv_projection, _rules_qkv_projection)

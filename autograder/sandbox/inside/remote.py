"""Helpers that run in the sandbox, next to the learner's object: ``obj.apply("fit", ...)``.

A check calls the learner's code through generic operations (call a function, a class or a
method; read a value). What must run where the learner's object lives (a training loop that calls
the learner's module many times, a look at its layers) is a helper here, applied to a remote
object with ``RemoteObject.apply(name, *args)``: adding one needs no change to the sandbox.

This module is mounted into the sandbox on its own, so it imports nothing but torch. A helper runs
with the sandbox's audit hook on, as learner code does (it calls into the learner's object), but
without the forbidden-call watch: it is the grader's own code, and may use any torch function.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from types import ModuleType

import torch


def _type_name(obj) -> str:
    return _class_name(type(obj))


def _class_name(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def describe(obj, names=()) -> dict:
    """The object's type and, for an ``nn.Module``, its direct children and parameters.

    ``names`` are attribute names the contract gives layers: one that is no registered child but
    an attribute holding an ``nn.Module`` (a property over a ModuleList) is described too, and
    ``shared`` lists the names that reach the very same layer as an earlier one, and
    ``repeated_parameters`` the parameter paths that reach a parameter already listed (one block
    placed twice in a ModuleList)."""
    info = {"type": _type_name(obj)}
    info["is_module"] = isinstance(obj, torch.nn.Module)
    if not info["is_module"]:
        return info
    children = {}
    layers = dict(obj.named_children())
    seen, shared = {}, []
    for name in names:
        child = layers.get(name)
        if child is None:
            child = getattr(obj, name, None)
            if not isinstance(child, torch.nn.Module):
                continue
            layers[name] = child
        if id(child) in seen:
            shared.append(name)
        seen[id(child)] = name
    info["shared"] = shared
    for name, child in layers.items():
        c = {"type": _type_name(child)}
        c["classes"] = [_class_name(k) for k in type(child).__mro__]  # a subclass is one too
        for attr in ("in_features", "out_features", "num_embeddings", "embedding_dim"):
            if hasattr(child, attr):
                c[attr] = int(getattr(child, attr))
        if isinstance(child, torch.nn.Linear):
            c["bias"] = child.bias is not None
        if isinstance(child, torch.nn.LayerNorm):
            c["normalized_shape"] = list(child.normalized_shape)
        children[name] = c
    info["children"] = children
    info["parameters"] = {n: list(p.shape) for n, p in obj.named_parameters()}
    every = (n for n, _ in obj.named_parameters(remove_duplicate=False))
    info["repeated_parameters"] = [n for n in every if n not in info["parameters"]]
    info["num_parameters"] = int(sum(p.numel() for p in obj.parameters()))
    return info


def load_state_dict(obj, state_dict: dict) -> None:
    """``obj.load_state_dict(state_dict, strict=True)``, or, where the module registers its
    layers under other names (properties ``w_q`` over a ModuleList, as the Annotated
    Transformer's ``clones``), through the attribute names: each key's tensor is copied into the
    parameter or buffer its dotted path reaches, and every parameter must be reached once."""
    try:
        obj.load_state_dict(state_dict, strict=True)
        return
    except (RuntimeError, KeyError) as err:
        strict_error = err
    targets = {}
    for key in state_dict:
        *path, last = key.split(".")
        owner = obj
        try:
            for attr in path:
                owner = getattr(owner, attr)
            tensor = getattr(owner, last)
        except AttributeError:
            raise strict_error from None
        if not isinstance(tensor, torch.Tensor) or tensor.shape != state_dict[key].shape:
            raise strict_error
        targets[key] = tensor
    reached = {id(t) for t in targets.values()}
    every = [p for p in obj.parameters()]
    if len(reached) != len(targets) or any(id(p) not in reached for p in every):
        raise strict_error
    with torch.no_grad():
        for key, tensor in targets.items():
            tensor.copy_(state_dict[key])


def fit(model, tokens: torch.Tensor, steps: int, lr: float) -> list[float]:
    """Next-token training: cross-entropy of logits[:, :-1] against tokens[:, 1:], AdamW."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, foreach=True)  # an op per step, not tensor
    model.train()
    losses = []
    for _ in range(steps):
        logits = model(tokens)
        loss = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        with _graph_breaks_only():
            opt.step()
        losses.append(float(loss))
    model.eval()
    return losses


@contextmanager
def _graph_breaks_only():
    """An optimizer's ``step`` marks where a compiled graph must break (``import torch._dynamo;
    torch._dynamo.graph_break()``), a no-op where nothing is compiled, as nothing is in the
    sandbox (``torch.compile`` is the identity there): during the step, that import finds this
    stand-in, not Dynamo, whose import would cost the exercise 1.2 s of its CPU time."""
    if "torch._dynamo" in sys.modules:  # (loaded by the learner's code: it serves)
        yield
        return
    stand_in = ModuleType("torch._dynamo")
    stand_in.graph_break = lambda msg="": None
    sys.modules["torch._dynamo"] = stand_in
    try:
        yield
    finally:
        if sys.modules.get("torch._dynamo") is stand_in:
            del sys.modules["torch._dynamo"]


def call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, as a helper runs it (no watch): the call whose peak memory the
    judge has the sandbox's server measure from outside this process
    (``Submission.peak_memory``). Nothing measured here decides a grade."""
    return fn(*args, **kwargs)


def _float_leaves(value):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _float_leaves(v)


def _graded(value):
    """A float tensor made a leaf that requires a gradient; anything else as it is."""
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().clone().requires_grad_(True)
    return value


def gradients(fn, args: tuple, kwargs: dict, weights=None, output: int | None = None) -> dict:
    """The gradients of ``fn(*args, **kwargs)``'s float output (``output``: which item of a
    returned tuple; None: every float tensor in it), summed times ``weights`` (None: fixed weights
    0.5..1.5), with respect to each float tensor among ``args`` and ``kwargs`` and, for an
    ``nn.Module``, each parameter. Returns ``{"args": [grad or None, ...], "kwargs": {name: grad
    or None}, "params": {name: grad or None}, "output_has_grad": bool, "uncalled": [name],
    "sparse": [name]}``:
    None where no gradient arrived (or where the value is no float tensor); with
    ``output_has_grad`` False, the output itself has no gradient path and nothing was
    backpropagated; ``uncalled``: the submodules (not ModuleList, ModuleDict) never called;
    ``sparse``: the parameters whose gradient is a sparse tensor (an embedding looked up with
    ``sparse=True``)."""
    torch.manual_seed(0)
    args = [_graded(a) for a in args]
    kwargs = {k: _graded(v) for k, v in kwargs.items()}
    is_module = isinstance(fn, torch.nn.Module)
    containers = (torch.nn.ModuleList, torch.nn.ModuleDict)  # no forward of their own
    modules = fn.named_modules() if is_module else ()
    owners = [(n, m) for n, m in modules if n and not isinstance(m, containers)]
    called, hooks = set(), []  # the layers (all but containers) that forward calls
    for name, module in owners:
        hooks.append(module.register_forward_hook(lambda *_, name=name: called.add(name)))
    if is_module:
        fn.zero_grad(set_to_none=True)
    try:
        out = fn(*args, **kwargs)
    finally:
        for hook in hooks:
            hook.remove()
    if output is not None and isinstance(out, (list, tuple)):
        out = out[output]
    leaves = [t for t in _float_leaves(out) if t.requires_grad]
    if leaves:
        if weights is not None:
            total = sum((t * weights).sum() for t in leaves)
        else:
            total = sum(
                (t * torch.linspace(0.5, 1.5, t.numel(), dtype=t.dtype).reshape(t.shape)).sum()
                for t in leaves
            )
        total.backward()

    def grad(value):
        return value.grad if isinstance(value, torch.Tensor) and value.requires_grad else None

    params = dict(fn.named_parameters()) if is_module else {}
    found = {
        "args": [grad(a) for a in args],
        "kwargs": {k: grad(v) for k, v in kwargs.items()},
        "params": {n: p.grad for n, p in params.items()},
        "output_has_grad": bool(leaves),
        "uncalled": [n for n, _m in owners if n not in called],
        "sparse": [
            n for n, p in params.items() if p.grad is not None and p.grad.layout != torch.strided
        ],
    }
    if is_module:
        fn.zero_grad(set_to_none=True)
    return found


def _weighted_sum(fn, args, kwargs, output):
    torch.manual_seed(0)  # the same dropout masks on every call
    out = fn(*args, **kwargs)
    if output is not None and isinstance(out, (list, tuple)):
        out = out[output]
    leaves = list(_float_leaves(out))
    return sum(
        (t * torch.linspace(0.5, 1.5, t.numel(), dtype=t.dtype).reshape(t.shape)).sum()
        for t in leaves
    )


def derivatives(fn, args: tuple, kwargs: dict, output: int | None = None) -> list:
    """Whether backward() agrees with the values, in float64: for each float input and
    parameter t, the derivative of the output's weighted sum (as :func:`gradients`) along a
    random direction u, by backward() (<t.grad, u>; None: no gradient) and by centred
    differences (f(t + eps u) - f(t - eps u)) / 2 eps, eps 1e-3 (code that computes in float32
    inside) and 1e-6 (a ReLU's kink within 1e-3). Returns ``[[kind, key, autograd, difference,
    difference, |f|], ...]``, kind "arg" (key: position), "kwarg" or "param"."""
    is_module = isinstance(fn, torch.nn.Module)
    dtype = next((p.dtype for p in fn.parameters()), None) if is_module else None
    wide = [a.double() if _is_float(a) else a for a in args]
    args = [_graded(a) for a in wide]
    kwargs = {k: _graded(v.double() if _is_float(v) else v) for k, v in kwargs.items()}
    try:
        if is_module:
            fn.double().zero_grad(set_to_none=True)
        total = _weighted_sum(fn, args, kwargs, output)
        if not isinstance(total, torch.Tensor) or not total.requires_grad:
            return []
        total.backward()
        found = [("arg", i, a) for i, a in enumerate(args) if _is_float(a)]
        found += [("kwarg", k, v) for k, v in kwargs.items() if _is_float(v)]
        found += [("param", n, p) for n, p in fn.named_parameters()] if is_module else []
        g, rows = torch.Generator().manual_seed(1), []
        with torch.no_grad():
            for kind, key, t in found:
                u = torch.randn(t.shape, generator=g, dtype=t.dtype)
                row = [kind, key, None if t.grad is None else float((t.grad * u).sum())]
                for eps in (1e-3, 1e-6):
                    t.add_(u, alpha=eps)
                    plus = float(_weighted_sum(fn, args, kwargs, output))
                    t.sub_(u, alpha=2 * eps)
                    minus = float(_weighted_sum(fn, args, kwargs, output))
                    t.add_(u, alpha=eps)
                    row.append((plus - minus) / (2 * eps))
                rows.append(row + [abs(plus + minus) / 2])
        return rows
    finally:
        if is_module:
            fn.zero_grad(set_to_none=True)
            if dtype is not None:
                fn.to(dtype)


def _is_float(value) -> bool:
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def _blocks(model) -> list:
    """The model's TransformerBlocks, as (name, module): instances of a class the learner named
    ``TransformerBlock``, or any module whose ``attn`` holds a ``w_o`` layer (the contract's
    attribute names)."""
    found = []
    for name, module in model.named_modules():
        attn = getattr(module, "attn", None)
        if type(module).__name__ == "TransformerBlock" or (
            isinstance(attn, torch.nn.Module)
            and isinstance(getattr(attn, "w_o", None), torch.nn.Module)
        ):
            found.append((name, module))
    return found


def _traced(model, tokens: torch.Tensor) -> tuple:
    """``(model(tokens) without grad, [(name, block) for each TransformerBlock (``_blocks``) it
    called, in call order])``, seen by forward hooks removed afterwards."""
    order, handles = [], []
    for name, module in _blocks(model):
        handles.append(
            module.register_forward_hook(lambda m, _a, _o, name=name: order.append((name, m)))
        )
    try:
        with torch.no_grad():
            return model(tokens), order
    finally:
        for handle in handles:
            handle.remove()


def block_calls(model, tokens: torch.Tensor) -> dict:
    """``{block name: how many times model(tokens) called it}`` for each of the model's
    TransformerBlocks (``_blocks``)."""
    counts = {name: 0 for name, _ in _blocks(model)}
    for name, _ in _traced(model, tokens)[1]:
        counts[name] += 1
    return counts


def ablate_attention(model, layer: str = "w_o", scale: float = 0.0) -> list:
    """Multiplies every TransformerBlock's ``attn.<layer>`` weight (``w_v`` or ``w_o``) by
    ``scale``, its bias kept: attention's contribution to the residual stream then no longer
    depends on the other positions, but for a part ``scale`` times as large (attention's rows sum
    to one, so scaled values give each position the same mix of the value biases). Returns the
    names of the blocks changed."""
    done = []
    with torch.no_grad():
        for name, module in _blocks(model):
            attn = getattr(module, "attn", None)
            for which in (layer, "w_o"):  # a block without a w_v weight: its w_o
                weight = getattr(getattr(attn, which, None), "weight", None)
                if isinstance(weight, torch.Tensor):
                    weight.mul_(scale)
                    done.append(name)
                    break
    return done


def last_block_scaled(model, tokens: torch.Tensor, *scales: float) -> list:
    """``[model(tokens), then the same with the output of the last TransformerBlock that forward
    calls multiplied by each scale]``: a LayerNorm between the last block and the output layer
    undoes a positive scale (up to its eps), so those logits agree only when one is there; and
    a linear output layer after it makes the logits for -1 and 0 affine in those for 1."""
    plain, order = _traced(model, tokens)
    if not order or not isinstance(plain, torch.Tensor):
        return [plain] * (1 + len(scales))
    outs = [plain]
    for scale in scales:
        handle = order[-1][1].register_forward_hook(
            lambda _m, _a, out, scale=scale: out * scale if isinstance(out, torch.Tensor) else out
        )
        try:
            with torch.no_grad():
                outs.append(model(tokens))
        finally:
            handle.remove()
    return outs

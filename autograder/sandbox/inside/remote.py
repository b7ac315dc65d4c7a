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

import torch


def _type_name(obj) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def describe(obj) -> dict:
    """The object's type and, for an ``nn.Module``, its direct children and parameters."""
    info = {"type": _type_name(obj)}
    info["is_module"] = isinstance(obj, torch.nn.Module)
    if not info["is_module"]:
        return info
    children = {}
    for name, child in obj.named_children():
        c = {"type": _type_name(child)}
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
    info["num_parameters"] = int(sum(p.numel() for p in obj.parameters()))
    return info


def load_state_dict(obj, state_dict: dict) -> None:
    """``obj.load_state_dict(state_dict, strict=True)``."""
    obj.load_state_dict(state_dict, strict=True)


def fit(model, tokens: torch.Tensor, steps: int, lr: float) -> list[float]:
    """Next-token training: cross-entropy of logits[:, :-1] against tokens[:, 1:], AdamW."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    losses = []
    for _ in range(steps):
        logits = model(tokens)
        loss = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    model.eval()
    return losses


def gradients(fn, weights, *args, **kwargs) -> dict:
    """The gradients of ``(fn(*args, **kwargs) * weights).sum()`` (of its first element when it
    returns a tuple) with respect to the float tensors among ``args`` (by position, None for the
    others) and to ``fn``'s parameters when it is an ``nn.Module`` (by name; None when unused)."""
    args = tuple(
        a.detach().clone().requires_grad_()
        if isinstance(a, torch.Tensor) and a.is_floating_point()
        else a
        for a in args
    )
    out = fn(*args, **kwargs)
    if isinstance(out, (tuple, list)):
        out = out[0]
    if isinstance(fn, torch.nn.Module):
        fn.zero_grad(set_to_none=True)
    (out * weights).sum().backward()
    params = dict(fn.named_parameters()) if isinstance(fn, torch.nn.Module) else {}
    return {
        "args": [a.grad if isinstance(a, torch.Tensor) and a.requires_grad else None for a in args],
        "params": {n: p.grad for n, p in params.items()},
    }

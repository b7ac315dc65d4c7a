"""Checking a learner's ``nn.Module``: constructing it, its layers, loading known weights into it.

The grader loads known weights into a module by the contract's attribute names and computes the
expected output from the same weights (``linear``), so a module is judged on what it computes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import torch

from autograder.i18n import _, enumeration
from autograder.kit.calling import Call, fail, learner_failed
from autograder.kit.inputs import randn
from autograder.kit.text import first_line, fmt_returned
from autograder.sandbox.host.replies import LearnerError


def construct(sub: Any, name: str, *args: Any, **kwargs: Any) -> tuple[Any, str]:
    """Construct the learner's class; returns the remote object and its label for messages."""
    c = Call(name, *args, **kwargs)
    try:
        obj = sub.new(name, *args, **kwargs)
    except LearnerError as err:
        raise learner_failed(c, err) from None
    obj.made = (name, args, kwargs)  # a new one like it (autograder.kit.repeat)
    return obj, str(c)


def expect_layers(
    obj: Any,
    label: str,
    layers: dict[str, dict[str, Any]],
    *,
    bias_mistake: str | None = None,
    known: dict[tuple[str, str, Any], str] | None = None,
) -> dict:
    """Check the module's direct children against the contract (attribute names, sizes, bias).
    ``known`` names a known wrong value: ``{("w_v", "out_features", d_k): mistake id}``."""
    d = obj.apply("describe", list(layers))
    if not d.get("is_module"):
        raise fail(not_a_module(label, d.get("type")))
    children = d.get("children", {})
    for attr, spec in layers.items():
        child = children.get(attr)
        if child is None or attr in d.get("shared", ()):
            # nn.Module lists a layer stored twice only once
            if attr in d.get("shared", ()) or _in_state_dict(obj, attr):
                raise fail(
                    _(
                        "{layer} is the very same layer as another of its layers: {layers} must "
                        "be separate layers, each with its own weights."
                    ).format(layer=f"{label}.{attr}", layers=enumeration(layers)),
                    # norm2 = norm1 is lesson 08's slip; one projection for all, lesson 01's
                    "same-norm-twice"
                    if spec.get("type") == "LayerNorm"
                    else "shared-projection-layer",
                )
            if _state_keys(obj, attr) == {attr}:  # a tensor of its own: nn.Parameter(...)
                raise fail(
                    _(
                        "{layer} is a tensor (an nn.Parameter?), not a layer: the contract asks "
                        "for an {kind} named {name}, so that the grader can load known weights "
                        "into it."
                    ).format(
                        layer=f"{label}.{attr}",
                        kind=f"nn.{spec.get('type', 'Linear')}",
                        name=repr(attr),
                    ),
                    "module-attribute-names",
                )
            has = enumeration(sorted(children)) or _("none")
            raise fail(
                _(
                    "{module} has no layer named {name} (its layers: {layers}); the grader loads "
                    "known weights by the contract's names."
                ).format(module=label, name=repr(attr), layers=has),
                "module-attribute-names",
            )
        for key, value in spec.items():
            got = child.get(key)
            if key == "type":  # a subclass is one too (the learner's own, say)
                if not any(str(c).endswith(value) for c in child.get("classes", [got])):
                    raise fail(
                        _("{layer} is a {type}, expected a {expected}.").format(
                            layer=f"{label}.{attr}", type=first_line(str(got)), expected=value
                        )
                    )
            elif _plain(got) != _plain(value):
                mistake = bias_mistake if key == "bias" and got and not value else None
                mistake = mistake or (known or {}).get((attr, key, _plain(got)))
                raise fail(
                    _("{layer} has {key}={value}, expected {expected}.").format(
                        layer=f"{label}.{attr}", key=key, value=fmt_returned(got), expected=value
                    ),
                    mistake,
                )
    return d


def _in_state_dict(obj: Any, attr: str) -> bool:
    """Whether the module's state_dict has weights under ``attr`` (a layer shared by two
    attributes is in the state_dict under both, though named_children lists it once)."""
    return any(k.startswith(attr + ".") for k in _state_keys(obj, attr))


def _state_keys(obj: Any, attr: str) -> set[str]:
    """The module's state_dict keys that are ``attr`` or under it."""
    try:
        state = obj.method("state_dict")
    except LearnerError:
        return set()
    if not isinstance(state, dict):
        return set()
    return {str(k) for k in state if str(k) == attr or str(k).startswith(attr + ".")}


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _keys_after(label: str, message: str) -> list[str]:
    m = re.search(
        label + r"[^:]*:(.*?)(?:Unexpected key|Missing key|size mismatch|$)", message, re.S
    )
    return re.findall(r"[\"']([\w.]+)[\"']", m.group(1)) if m else []


def load_weights(
    obj: Any, state: dict[str, torch.Tensor], label: str, *, bias_mistake=None, lacks_bias=None
):
    """Load known weights (strict); explain missing/unexpected keys when it fails.
    ``bias_mistake`` names a module with biases the contract lacks, ``lacks_bias`` one without
    the biases it has."""
    try:
        obj.apply("load_state_dict", dict(state))
    except LearnerError as err:
        missing = _keys_after("Missing key", err.message)
        unexpected = _keys_after("Unexpected key", err.message)
        if missing or unexpected:
            only_bias = all(k.endswith(".bias") for k in missing) and not unexpected
            mistake = bias_mistake if (bias_mistake and missing and only_bias) else None
            lacks_only_bias = all(k.endswith(".bias") for k in unexpected) and not missing
            mistake = mistake or (lacks_bias if unexpected and lacks_only_bias else None)
            mistake = mistake or "module-attribute-names"
            parts = []
            if missing:
                parts.append(
                    _("your module has {names} that the contract lacks").format(
                        names=enumeration(missing[:6])
                    )
                )
            if unexpected:
                parts.append(_("it lacks {names}").format(names=enumeration(unexpected[:6])))
            detail = _("; ").join(parts)
        else:
            mistake, detail = None, first_line(err.message.replace("\n", " "), 240)
        raise fail(
            _("Loading known weights into {module} failed: {detail}.").format(
                module=label, detail=detail
            ),
            mistake,
        ) from None


def not_a_module(label: str, type_name: Any) -> str:
    """The message for a class that does not subclass torch.nn.Module."""
    return _("{module} is a {type}, not an nn.Module: subclass torch.nn.Module.").format(
        module=label, type=type_name
    )


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

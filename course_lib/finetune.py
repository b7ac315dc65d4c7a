"""Lesson 08: fine-tuning a trained model cheaply with LoRA (Hu et al., 2021).

LoRA freezes a trained weight matrix ``W`` and learns a low-rank update beside it::

    y = x W^T + b + (alpha / r) * x A^T B^T,    A: (r, in), B: (out, r), r << min(in, out)

``B`` starts at zero, so the adapted model starts as exactly the trained one; only ``A`` and
``B`` train, ``r * (in + out)`` numbers per adapted layer instead of ``in * out``
(Hu et al., "LoRA: Low-Rank Adaptation of Large Language Models", 2021, section 4.1).

* :class:`LoRALinear`: a frozen ``nn.Linear`` plus its trainable low-rank update.
* :func:`add_lora`: freeze a whole model and put adapters on the linear layers with given names
  (``w_q`` and ``w_v`` by default, the pair the LoRA paper adapts in its experiments).
* :func:`count_parameters`: trainable and total parameters of a model.

Shape legend: N any leading dims, I in_features, O out_features, R rank.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch
from torch import nn


class LoRALinear(nn.Module):
    """``base(x) + (alpha / r) * x A^T B^T``, with ``base`` frozen and ``A``, ``B`` trainable.

    Args:
        base: the trained ``nn.Linear`` to adapt. Its parameters are set to
            ``requires_grad=False``; its values are never changed.
        r: the rank of the update (a positive int).
        alpha: the update is scaled by ``alpha / r``; ``None`` means ``alpha = r`` (scale 1),
            so that changing ``r`` does not change the scale.

    Attributes:
        base: the frozen layer.
        lora_a: ``(r, in_features)``, initialised like ``nn.Linear``'s weight (as Hugging Face
            PEFT does; the paper draws it from a Gaussian).
        lora_b: ``(out_features, r)``, zeros: at initialisation the update is exactly 0.
        scaling: ``alpha / r``.
    """

    def __init__(self, base: nn.Linear, r: int = 8, alpha: float | None = None):
        super().__init__()
        if not isinstance(base, nn.Linear):
            raise TypeError(f"LoRALinear adapts an nn.Linear, got {type(base).__name__}")
        if not isinstance(r, int) or r < 1:
            raise ValueError(f"the rank r must be a positive int, got {r!r}")
        self.base = base.requires_grad_(False)
        self.r = r
        self.scaling = (r if alpha is None else alpha) / r
        w = base.weight
        self.lora_a = nn.Parameter(torch.empty(r, base.in_features, device=w.device, dtype=w.dtype))
        self.lora_b = nn.Parameter(
            torch.zeros(base.out_features, r, device=w.device, dtype=w.dtype)
        )
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x: (N, I) -> (N, O)``."""
        update = (x @ self.lora_a.T) @ self.lora_b.T  # (N, I) -> (N, R) -> (N, O)
        return self.base(x) + self.scaling * update

    def merged(self) -> nn.Linear:
        """A plain ``nn.Linear`` computing the same thing: ``W + (alpha / r) B A``.

        After fine-tuning, the update can be folded into the weight, so the adapted model costs
        nothing extra at inference (Hu et al., section 4.1).
        """
        base = self.base
        merged = nn.Linear(base.in_features, base.out_features, bias=base.bias is not None)
        merged = merged.to(device=base.weight.device, dtype=base.weight.dtype)
        with torch.no_grad():
            merged.weight.copy_(base.weight + self.scaling * self.lora_b @ self.lora_a)  # (O, I)
            if base.bias is not None:
                merged.bias.copy_(base.bias)
        return merged

    def extra_repr(self) -> str:
        return f"r={self.r}, scaling={self.scaling:g}"


def add_lora(
    model: nn.Module, names: Iterable[str] = ("w_q", "w_v"), r: int = 8, alpha: float | None = None
) -> list[str]:
    """Freeze every parameter of ``model``, then wrap each ``nn.Linear`` whose attribute name is
    in ``names`` in a :class:`LoRALinear` (in place).

    Returns the dotted paths of the adapted layers (``["blocks.0.attn.w_q", ...]``). Only the
    adapters' ``lora_a`` and ``lora_b`` remain trainable. Raises ``ValueError`` when no linear
    layer has one of the names (it lists the names the model's linear layers do have).
    """
    names = set(names)
    model.requires_grad_(False)
    found = []
    for path, module in list(model.named_modules()):
        for name, child in list(module.named_children()):
            if name in names and isinstance(child, nn.Linear):
                setattr(module, name, LoRALinear(child, r=r, alpha=alpha))
                found.append(f"{path}.{name}" if path else name)
    if not found:
        linear = sorted(
            {p.rsplit(".", 1)[-1] for p, m in model.named_modules() if isinstance(m, nn.Linear)}
        )
        raise ValueError(
            f"no nn.Linear of the model is named one of {sorted(names)}; its linear layers are "
            f"named {linear}: pass those names"
        )
    return found


def count_parameters(model: nn.Module) -> tuple[int, int]:
    """``(trainable, total)``: the numbers of parameters with and without ``requires_grad``."""
    params = list(model.parameters())
    return sum(p.numel() for p in params if p.requires_grad), sum(p.numel() for p in params)

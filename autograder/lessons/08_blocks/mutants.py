"""Lesson 08: ``TransformerBlock``'s known mistakes, the contract's block in float64 with a knob
turned (``autograder.kit.expected.block``), and the arguments it is built with."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from autograder.i18n import _
from autograder.kit import fail, load_weights
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import block

BLOCK_KNOBS = (
    ("pre-post-ln-swapped", {"swapped"}),
    ("residual-missing", {"no-residual-1"}),
    ("residual-missing", {"no-residual-2"}),
    ("residual-missing", {"no-residual-1", "no-residual-2"}),
    ("residual-added-twice", {"residual-twice-1"}),
    ("residual-added-twice", {"residual-twice-2"}),
    ("residual-from-normed-input", {"residual-normed"}),
    ("residual-from-normed-input", {"residual-normed-2"}),
    ("residual-from-normed-input", {"residual-normed-1"}),
    ("pre-ln-output-normed", {"output-normed"}),
    ("same-norm-twice", {"norm1-twice"}),
    ("same-norm-twice", {"norm2-twice"}),
    ("mask-ignored", {"mask-ignored"}),
    ("mask-polarity-inverted", {"mask-inverted"}),
    ("ffn-missing-activation", {"no-activation"}),
    *(("post-ln-norm-then-add", {f"norm-then-add{i}"}) for i in ("", "-1", "-2")),
    ("one-residual-around-both", {"one-residual"}),
    ("norms-swapped", {"norms-swapped"}),
    ("post-ln-norm-inside-residual", {"norm-inside-residual"}),
    ("ffn-reads-block-input", {"ffn-block-input"}),
    *(("post-ln-sublayer-input-normed", {f"post-ln-normed-{i}"}) for i in (1, 2)),
    ("pre-ln-kv-unnormed", {"kv-unnormed"}),
    ("layernorm-over-tokens", {"norm-over-tokens"}),
    ("norm-on-sublayer-output", {"norm2-on-attn"}),
    ("post-ln-ffn-reads-unnormed", {"post-ln-ffn-unnormed"}),
    ("block-causal-by-default", {"default-causal"}),
    *(
        ("layernorm-eps-changed", {f"eps={e}"})
        for e in ("1e-3", "1e-4", "1e-2", "0.1", "1e-6", "1e-12")
    ),
)


AS_BOOL = (  # a float mask made a bool one, as learners write it
    lambda m: m == 0,
    lambda m: m.isfinite(),
    lambda m: m >= 0,
    lambda m: m.bool(),
    # bool-only code, which raises on a float mask as these do
    lambda m: ~m,
    lambda m: torch.where(m, 0.0, float("-inf")),
    lambda m: torch.zeros_like(m).masked_fill(m, float("-inf")),
)


def block_mutants(state, h, norm_first):
    def mask_as_key(x, mask=None):  # self.attn(x, mask): the mask is projected by w_k as a key
        return F.linear(mask, state["attn.w_k.weight"], state["attn.w_k.bias"])

    def as_bool(x, mask=None, how=None):
        if mask is None or mask.dtype == torch.bool:
            raise ValueError("a mistake of float masks")
        return block(state, h, x, how(mask), norm_first)

    def as_float(x, mask=None):  # mask.float(): 1 where a query may attend, added to the scores
        if mask is None or mask.dtype != torch.bool:
            raise ValueError("a mistake of bool masks")
        return block(state, h, x, mask.double(), norm_first)

    return (
        ("bool-mask-added", as_float),
        *(
            (m, lambda x, mask=None, kn=kn: block(state, h, x, mask, norm_first, kn))
            for m, kn in BLOCK_KNOBS
        ),
        ("mask-passed-as-key", mask_as_key),
        *(
            ("additive-mask-as-bool", lambda x, mask=None, how=how: as_bool(x, mask, how))
            for how in AS_BOOL
        ),
    )


def load_block_weights(obj, state, label, d_ff) -> None:
    """Known weights, loaded by name; a FeedForward of another width than d_ff is named."""
    try:
        load_weights(obj, state, label, lacks_bias="block-attn-no-bias")
    except CheckFailure as failure:
        shape = obj.apply("describe").get("parameters", {}).get("ff.linear1.weight")
        if failure.mistake is None and shape and shape[0] != d_ff:
            raise fail(
                _(
                    "{block}: ff.linear1 has {width} outputs, where the block was built with "
                    "d_ff = {d_ff}: build the block's FeedForward with d_ff."
                ).format(block=label, width=shape[0], d_ff=d_ff),
                "block-ignores-d-ff",
            ) from None
        raise

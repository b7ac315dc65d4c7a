"""The language model's GPT-2 layout, judged by behaviour: Pre-LN blocks, and one LayerNorm
between the last block and the output layer (found by what it does to the logits, not by its
parameters: a LayerNorm without elementwise_affine, as OLMo's, is one).

The blocks are recognised by the contract's attribute names (``<block>.attn``, ``.ff``,
``.norm1``, ``.norm2``); a model with blocks of its own has nothing to recognise them by, and
only the behaviour checks that need no names apply to it."""

from __future__ import annotations

import re

import torch

from autograder.i18n import _, enumeration
from autograder.kit import sentences
from autograder.kit.calling import Call, LearnerError, fail
from autograder.kit.gradients import missing_gradients
from autograder.kit.inputs import randn
from autograder.kit.text import fmt_num

BLOCK_PARAM = re.compile(r"^(.*)\.(?:attn|ff|norm1|norm2)\.")
SUBLAYER_OUT = re.compile(r"\.(?:attn\.w_o|ff\.linear2)\.(?:weight|bias)$")
BLOCK_NORM = re.compile(r"\.norm[12]\.(?:weight|bias)$")
# The last block's output is multiplied by LAST_BLOCK_SCALE: a LayerNorm after it gives the same
# logits up to its eps (a relative change near 1e-6 for a residual stream of variance ~1); without
# one the logits move by a share of their size (FINAL_NORM_RTOL bounds what is accepted).
LAST_BLOCK_SCALE = 4.0
FINAL_NORM_RTOL = 1e-3


def block_names(info, repeated=False) -> set[str]:
    """The names of the model's TransformerBlocks, found by the contract's attribute names;
    ``repeated``: with the names that reach a block already named (``[block] * num_layers``)."""
    names = [
        *info.get("parameters", {}),
        *(info.get("repeated_parameters", ()) if repeated else ()),
    ]
    return {m[1] for n in names if (m := re.match(r"^(.*)\.norm1\.weight$", n))}


def expect_gpt2_layout(obj, label, info, g, tokens, d) -> None:
    """The lesson's architecture, judged once the model works (``info``: its ``describe``)."""
    _check_final_norm_used(obj, label, info, d, tokens)
    _check_final_norm_last(obj, label, info, tokens)
    _check_pre_ln(obj, label, info, g, tokens)


def _check_final_norm_used(obj, label, info, d, tokens) -> None:
    """The final LayerNorm must be used, not only defined: a gradient reaches it; and every
    block, each reading the previous one's output."""
    c = Call(label, tokens, params="lm.forward")
    missing = missing_gradients(obj, c)
    if not missing:
        return
    params, blocks = info.get("parameters", {}), sorted(block_names(info))
    lost = set(map(str, missing))  # a set: the learner's list (round 19)
    unused = [b for b in blocks if all(n in lost for n in params if n.startswith(b + "."))]
    if unused and len(unused) < len(blocks):
        raise fail(
            _(sentences.LM_BLOCK_UNUSED).format(call=c, blocks=enumeration(unused)),
            "lm-blocks-not-chained",
        )
    outside = [n for n in missing if not BLOCK_PARAM.match(str(n)) and params.get(n) == [d]]
    if outside and block_names(info):
        raise fail(
            _(sentences.LM_FINAL_NORM_UNUSED).format(call=c, names=enumeration(outside[:2])),
            "lm-no-final-norm",
        )


def _check_pre_ln(obj, label, info, g, tokens) -> None:
    """With every block's attention output projection and linear2 at zero, a Pre-LN block is the
    identity (x + 0 + 0), whatever its LayerNorms hold; a Post-LN block still normalises x."""
    params = info.get("parameters", {})
    if not block_names(info):
        return
    state = {
        n: torch.zeros(shape) if SUBLAYER_OUT.search(n) else randn(g, *shape)
        for n, shape in params.items()
    }
    other = {n: randn(g, *t.shape) if BLOCK_NORM.search(n) else t for n, t in state.items()}
    outputs = []
    for weights in (state, other):
        try:
            obj.apply("load_state_dict", weights)
        except LearnerError:
            return  # buffers or parameters describe() does not list: can't set every weight
        c = Call(label, tokens, params="lm.forward")
        outputs.append(c.run(obj, devices=False))
    a, b = outputs
    if isinstance(a, torch.Tensor) and a.shape == b.shape and not torch.allclose(a, b, atol=1e-5):
        raise fail(
            _(sentences.LM_POST_LN_BLOCKS).format(call=c),
            "lm-post-ln-blocks",
        )


def _check_final_norm_last(obj, label, info, tokens) -> None:
    """The final LayerNorm must come after the last block: scaling that block's output by a
    constant then leaves the logits as they were (LayerNorm is scale-invariant), where a norm
    before the blocks, or none, lets the scale through. And the output layer must read the
    norm's output as it is: LayerNorm(-x) = 2 beta - LayerNorm(x) and LayerNorm(0) = beta, so
    with a linear head the logits for x and -x average to those for 0; an activation between
    them (GELU(LayerNorm(x)), still scale-invariant) breaks that."""
    if not block_names(info):
        return
    c = Call(label, tokens, params="lm.forward")
    outs = obj.apply("last_block_scaled", tokens, LAST_BLOCK_SCALE, -1.0, 0.0)
    if not all(isinstance(t, torch.Tensor) for t in outs):
        return
    plain, scaled, negated, zeroed = outs
    if any(t.shape != plain.shape for t in outs):
        return
    size = max(float(plain.abs().max()), 1e-6)
    moved = float((scaled - plain).abs().max())
    if moved > FINAL_NORM_RTOL * size:
        _check_no_path_around_blocks(c, zeroed)
        raise fail(
            _(sentences.LM_FINAL_NORM_NOT_LAST).format(
                call=c, scale=fmt_num(LAST_BLOCK_SCALE), moved=fmt_num(moved)
            ),
            "lm-no-final-norm",
        )
    off = float((plain + negated - 2 * zeroed).abs().max())
    if off > FINAL_NORM_RTOL * size:
        raise fail(
            _(sentences.LM_HEAD_NOT_LINEAR).format(call=c, off=fmt_num(off)), "lm-head-not-linear"
        )


def _check_no_path_around_blocks(c, zeroed) -> None:
    """With the last block's output set to 0 (``zeroed``: the logits then), the logits are the
    same at every position (the final LayerNorm of 0 is its bias), unless something reaches them
    around the blocks."""
    if zeroed.dim() != 3:
        return
    spread = float((zeroed - zeroed[:1, :1]).abs().max())
    if spread > FINAL_NORM_RTOL * max(float(zeroed.abs().max()), 1e-6):
        raise fail(_(sentences.LM_PATH_AROUND_BLOCKS).format(call=c), "lm-skips-blocks")

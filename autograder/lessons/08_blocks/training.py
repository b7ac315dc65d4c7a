"""Lesson 08 in training mode: a new module is in training mode, and the notebook trains it there.
With dropout=0 it must compute what it computes in eval mode: the block's mask, the model's causal
mask and final LayerNorm act in both modes; and a causal model sees ALL of its past."""

from __future__ import annotations

import torch

from autograder.i18n import _
from autograder.kit import (
    Call,
    construct,
    expect_close,
    expect_tensor,
    fail,
    fmt_num,
    randn,
    sentences,
)
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import block
from autograder.kit.modules import load_weights

TRAIN_MODE_DIFFERS = "train-mode-differs"


def expect_affine_norms(info, label) -> None:
    """norm1 and norm2 are nn.LayerNorm(d_model) with their weight and bias (the encoder layer's,
    which the checks load): elementwise_affine=False leaves nothing to load."""
    params = info.get("parameters", {})
    for norm in ("norm1", "norm2"):
        if f"{norm}.weight" not in params:
            raise fail(
                _(
                    "{layer} has no weight or bias (elementwise_affine=False?): the block's "
                    "LayerNorms learn a scale and a shift, as nn.TransformerEncoderLayer's do."
                ).format(layer=f"{label}.{norm}"),
                "layernorm-no-affine",
            )


def expect_block_in_training(sub, g, state, h, d_ff, mutants) -> None:
    """A new TransformerBlock (training mode, dropout=0) under a causal mask computes what the
    contract's block computes: a mask honoured in eval mode only is named by the mutants."""
    d = state["norm1.weight"].shape[0]
    obj, label = construct(sub, "TransformerBlock", d, h, d_ff)
    load_weights(obj, state, label)
    obj.train()
    x, mask = randn(g, 2, 4, d), torch.ones(4, 4, dtype=torch.bool).tril()
    c = Call(label + ".train()", x, mask=mask, params="forward")
    out = c.run(obj, mutants=mutants)
    again = c.run(obj)
    if isinstance(out, torch.Tensor) and isinstance(again, torch.Tensor):
        if out.shape == again.shape and not torch.equal(out, again):
            raise fail(
                _(
                    "{call} gave different outputs on two calls with the same inputs: with "
                    "dropout=0 a dropout acts, at a rate of its own."
                ).format(call=c),
                "block-dropout-rate-ignored",
            )
    try:
        expect_close(out, block(state, h, x, mask), c, mutants=mutants)
    except CheckFailure as failure:
        if failure.mistake is None:  # right in eval mode (checked before): wrong in training
            failure.mistake = TRAIN_MODE_DIFFERS
        raise


def expect_lm_in_training(sub, g, args) -> None:
    """A new one-layer TinyTransformer in training mode: causal, seeing every earlier token (not
    a window), and giving the logits of eval mode (the final norm and the mask in both modes). A
    model whose training-mode logits are random (dropout of its own) is left to the eval checks."""
    vocab, d, h, _layers, d_ff, max_len = args
    obj, label = construct(sub, "TinyTransformer", vocab, d, h, 1, d_ff, max_len)
    obj.train()
    model = label + ".train()"
    tokens = torch.randint(0, vocab, (2, max_len), generator=g)

    def logits(t):
        c = Call(model, t, params="lm.forward")
        return expect_tensor(
            c.run(obj, devices=False), c, shape=(*t.shape, vocab), what="the logits"
        )

    train = logits(tokens)
    if not torch.equal(train, logits(tokens)):
        return  # dropout in training mode: nothing below can be judged
    changed = tokens.clone()
    changed[:, 4:7] = (changed[:, 4:7] + 1) % vocab
    diff = float((logits(changed[:, :7])[:, :4] - train[:, :4]).abs().max())
    if diff > 1e-4:
        raise fail(
            _(sentences.LM_SEES_FUTURE).format(diff=fmt_num(diff), model=model), "not-causal"
        )
    first = tokens.clone()
    first[:, 0] = (first[:, 0] + 1) % vocab
    previous = tokens.clone()
    previous[:, -2] = (previous[:, -2] + 1) % vocab

    def last_moves(t) -> bool:
        return float((logits(t)[:, -1] - train[:, -1]).abs().max()) >= 1e-6

    if not last_moves(first) and last_moves(previous):  # blind to all the past: named later
        raise fail(
            _(
                "{model}: changing token 0 left the logits at position {last} unchanged: with "
                "one layer, each position must see every earlier token (causal_mask(L), not a "
                "window)."
            ).format(model=model, last=max_len - 1),
            "lm-sees-window-only",
        )
    obj.eval()
    diff = float((logits(tokens) - train).abs().max())
    if diff > 1e-4:
        raise fail(
            _(
                "{model} and .eval() give logits that differ by up to {diff} with no dropout: "
                "something (the final LayerNorm, the causal mask) acts in one mode only."
            ).format(model=model, diff=fmt_num(diff)),
            TRAIN_MODE_DIFFERS,
        )


def expect_deterministic(obj, c, first, want):
    """In eval mode dropout is off: a wrong output that changes from call to call is dropout."""
    again = c.run(obj)
    if isinstance(again, torch.Tensor) and isinstance(first, torch.Tensor):
        if first.shape == again.shape and not torch.equal(first, again):
            raise fail(
                _(sentences.EVAL_NOT_DETERMINISTIC).format(call=c),
                "dropout-always-on",
            )

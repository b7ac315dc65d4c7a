"""Lesson 08: the Transformer block. ``FeedForward``, ``TransformerBlock``, ``TinyTransformer``.

B batch, L positions, D d_model, F d_ff, V vocabulary.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from autograder.i18n import _
from autograder.kit import (
    MHA_FORBID,
    Call,
    additive,
    bias_mask,
    construct,
    exercise,
    expect_close,
    expect_layers,
    expect_meta,
    expect_tensor,
    expect_unchanged,
    fail,
    fmt_dtype,
    fmt_num,
    generator,
    linear_state,
    load_weights,
    low_precision_dtypes,
    no_full_rows,
    on_meta,
    randn,
    sentences,
)
from autograder.kit.dropout import expect_block_dropout, expect_ffn_dropout
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import ACTIVATIONS, block, feed_forward
from autograder.kit.gradients import (
    expect_contract_rules,
    expect_true_gradients,
    fitted,
    train_with_dropout,
    wide_call,
    with_rules,
)
from autograder.kit.lm import (
    construct_lm,
    expect_copies,
    expect_order_seen,
    expect_scores_used,
    expect_self_seen,
)
from autograder.kit.lm_layout import block_names, expect_gpt2_layout
from autograder.kit.module_calls import expect_module_calls
from autograder.kit.modules import not_a_module
from autograder.kit.positional import expect_same_by_position
from autograder.kit.repeat import random_failure

from .arguments import expect_arguments_used
from .layout import expect_tiny_layout, naming_batch_mask, positions_by_batch_index
from .mutants import block_mutants, load_block_weights
from .training import (
    expect_affine_norms,
    expect_block_in_training,
    expect_deterministic,
    expect_lm_in_training,
)

# ---- FeedForward --------------------------------------------------------------------------------


def ff_state(g, d, d_ff, prefix=""):
    return linear_state(g, prefix + "linear1", d, d_ff, True) | linear_state(
        g, prefix + "linear2", d_ff, d, True
    )


def ff_mutants(state):
    return (
        ("ffn-missing-activation", lambda x: feed_forward(state, x, act="none")),
        ("ffn-activation-after-output", lambda x: feed_forward(state, x, act_after=True)),
        ("ffn-relu-on-input", lambda x: feed_forward(state, F.relu(x), act="none")),
        *(
            ("ffn-wrong-activation", lambda x, a=a: feed_forward(state, x, act=a))
            for a in ACTIVATIONS
            if a not in ("relu", "none")  # the contract's, and ffn-missing-activation's
        ),
    )


@exercise("FeedForward")
def check_feed_forward(sub) -> None:
    g = generator(14)
    for d, d_ff, dropout, shape in ((4, 8, None, (2, 3, 4)), (6, 5, 0.25, (3, 6))):
        args = (d, d_ff) if dropout is None else (d, d_ff, dropout)
        obj, label = construct(sub, "FeedForward", *args)
        layers = {
            "linear1": {"type": "Linear", "in_features": d, "out_features": d_ff, "bias": True},
            "linear2": {"type": "Linear", "in_features": d_ff, "out_features": d, "bias": True},
        }
        no_bias = {(n, "bias", False): "ffn-linear-no-bias" for n in ("linear1", "linear2")}
        expect_layers(obj, label, layers, known=no_bias)
        state = ff_state(g, d, d_ff)
        load_weights(obj, state, label)
        obj.eval()
        x = randn(g, *shape)
        c = Call(label + ".eval()" if dropout else label, x, params="forward")
        out = c.run(obj)
        want = feed_forward(state, x)
        if dropout:
            expect_deterministic(obj, c, out, want)
        expect_close(out, want, c, dtype=x.dtype, mutants=ff_mutants(state))
        if dropout:
            expect_ffn_dropout(sub, g, dropout, ff_mutants)
    for dtype in low_precision_dtypes():
        obj.to(dtype)
        x = randn(g, 2, 3, d, dtype=dtype)
        c = Call(f"{label}.to({fmt_dtype(dtype)})", x, params="forward")
        low = {k: w.to(dtype) for k, w in state.items()}
        expect_close(c.run(obj), feed_forward(low, x), c, dtype=dtype)
    with on_meta():  # meta tensors have shapes but no data
        obj.to(torch.float32)
        obj.to("meta")
        c = Call(label + ".to('meta')", torch.empty(2, 3, d, device="meta"), params="forward")
        expect_meta(c.run(obj), c, (2, 3, d), torch.float32)


# ---- TransformerBlock --------------------------------------------------------------------------


def block_state(g, d, d_ff):
    state = {}
    for n in "qkvo":
        state |= linear_state(g, f"attn.w_{n}", d, d, bias=True)
    state |= ff_state(g, d, d_ff, "ff.")
    for n in ("norm1", "norm2"):
        state[f"{n}.weight"] = 1.0 + 0.3 * randn(g, d)
        state[f"{n}.bias"] = 0.3 * randn(g, d)
    return state


BLOCK_FORBID = MHA_FORBID + (
    "torch.nn.TransformerEncoderLayer",
    "torch.nn.TransformerEncoder",
    "torch.nn.TransformerDecoderLayer",
    "torch.nn.TransformerDecoder",
    "torch.nn.Transformer",
    "aten._transformer_encoder_layer_fwd",
)


@exercise("TransformerBlock", forbid=BLOCK_FORBID)
def check_transformer_block(sub) -> None:
    g = generator(15)
    d, h, d_ff = 8, 2, 16
    cases = (  # (constructor kwargs, norm_first, x shape, mask, x's scale)
        ({}, True, (2, 3, d), None, 1.0),
        ({"norm_first": False}, False, (2, 3, d), None, 1.0),
        ({}, True, (2, 4, d), torch.ones(4, 4, dtype=torch.bool).tril(), 1.0),
        ({"norm_first": False}, False, (1, 4, d), no_full_rows(g, 4, 4), 1.0),
        ({"dropout": 0.5}, True, (2, 3, d), None, 1.0),
        ({}, True, (2, 3, d), None, 1e-2),  # a variance near LayerNorm's eps: 1e-6 for 1e-5 shows
        # a float mask, added to the scores as MultiHeadAttention adds it (COURSE_SPEC)
        ({}, True, (2, 4, d), additive(no_full_rows(g, 4, 4), bias_mask(g, 4, 4)), 1.0),
    )
    for kwargs, norm_first, shape, mask, scale in cases:
        obj, label = construct(sub, "TransformerBlock", d, h, d_ff, **kwargs)
        layers = {
            "attn": {"type": "MultiHeadAttention"},
            "ff": {"type": "FeedForward"},
            "norm1": {"type": "LayerNorm", "normalized_shape": (d,)},
            "norm2": {"type": "LayerNorm", "normalized_shape": (d,)},
        }
        expect_affine_norms(expect_layers(obj, label, layers), label)
        state = block_state(g, d, d_ff)
        load_block_weights(obj, state, label, d_ff)
        obj.eval()
        x = randn(g, *shape) * scale
        c = Call(label, x, params="forward", **({} if mask is None else {"mask": mask}))
        mutants = block_mutants(state, h, norm_first)
        out = c.run(obj, mutants=mutants)
        want = block(state, h, x, mask, norm_first)
        if (
            mask is not None and mask.dtype == torch.bool and bool((mask == mask.tril()).all())
        ):  # causal: the future is hidden
            x2 = x.clone()
            x2[:, -1] = randn(g, x.shape[0], d) * 3
            other = Call(label, x2, mask=mask, params="forward").run(obj, mutants=mutants)
            why = _("changing the last token, which the causal mask hides from the others,")
            expect_unchanged(
                c,
                out,
                other,
                (slice(None), slice(0, -1)),
                why,
                mutants=mutants,
                what="their output",
            )
        if "dropout" in kwargs:
            expect_deterministic(obj, c, out, want)
        try:
            expect_close(out, want, c, dtype=x.dtype, mutants=mutants)
        except CheckFailure as failure:
            if failure.mistake is None and isinstance(out, (tuple, list)):
                failure.mistake = "block-returns-tuple"
            if failure.mistake is None:  # its attention may not be attention at all
                expect_scores_used(obj, c)
            raise
    fresh = block_state(g, d, d_ff)
    expect_block_in_training(sub, g, fresh, h, d_ff, block_mutants(fresh, h, True))
    expect_block_dropout(sub, g, block_state(g, d, d_ff), h, 0.25)  # p and 1 - p differ
    for dtype in low_precision_dtypes():
        obj.to(dtype)
        x = randn(g, 2, 3, d, dtype=dtype)
        c = Call(f"{label}.to({fmt_dtype(dtype)})", x, params="forward")
        low = {k: w.to(dtype) for k, w in state.items()}
        expect_close(c.run(obj), block(low, h, x), c, dtype=dtype, tol=(0.1, 0.1))
    with on_meta():  # meta tensors have shapes but no data
        obj.to(torch.float32)
        obj.to("meta")
        mask = torch.empty(3, 3, dtype=torch.bool, device="meta")
        c = Call(
            label + ".to('meta')", torch.empty(2, 3, d, device="meta"), mask=mask, params="forward"
        )
        expect_meta(c.run(obj), c, (2, 3, d), torch.float32)


# ---- TinyTransformer ---------------------------------------------------------------------------


@exercise("TinyTransformer", forbid=BLOCK_FORBID, time_limit=40.0)
def check_tiny_transformer(sub) -> None:
    g = generator(16)
    vocab, d, h, layers, d_ff, max_len = 11, 16, 2, 2, 32, 12
    obj, label = construct_lm(sub, vocab, d, h, layers, d_ff, max_len)
    info = obj.apply("describe")
    if not info.get("is_module"):
        raise fail(not_a_module(label, info.get("type")))
    least = layers * (4 * d * d + 2 * d * d_ff)  # the blocks' weight matrices alone
    if info.get("num_parameters", 0) < least:
        blocks, placed = len(block_names(info)), len(block_names(info, repeated=True))
        if placed >= layers > blocks:  # [block] * num_layers: one block placed again
            text, mistake = _(sentences.LM_ONE_BLOCK_OF_PARAMETERS), "layers-shared"
        elif 0 < blocks < layers:  # range(num_layers - 1)
            text, mistake = _(sentences.LM_TOO_FEW_BLOCKS), "lm-too-few-blocks"
        else:
            text, mistake = _(sentences.LM_TOO_FEW_PARAMETERS), "layers-not-registered"
        fields = {"count": info.get("num_parameters"), "blocks": blocks, "layers": layers}
        raise fail(text.format(model=label, least=least, **fields), mistake)
    obj.eval()
    tokens = torch.randint(0, vocab, (2, 7), generator=g)
    # What the model computes is judged first, and where the tensors it makes live last.
    c = Call(label + ".eval()", tokens, params="lm.forward")
    out = None
    try:
        out = c.run(obj, devices=False)
        logits = expect_tensor(out, c, shape=(2, 7, vocab), dtype=torch.float32, what="the logits")
    except CheckFailure as failure:
        shape = getattr(out, "shape", None)
        if failure.mistake is None and shape in ((2, vocab), (2, 1, vocab), (2, 6, vocab)):
            shifted = tuple(shape) == (2, 6, vocab)  # L - 1 positions: the targets' shift
            failure.mistake = "lm-shifts-targets" if shifted else "lm-last-position-only"
        if failure.mistake is None and _runs_on(obj, label, vocab, (7, 7)):
            failure.mistake = "seq-len-from-batch-dim"
        if failure.mistake is None and _runs_on(obj, label, vocab, (2, max_len)):
            failure.mistake = "lm-built-for-max-len"
        raise
    again = c.run(obj, devices=False)
    if isinstance(again, torch.Tensor) and not torch.equal(again, logits):
        raise random_failure(obj, c)  # dropout, or a layer built in forward
    if bool((logits >= 0).all()) and torch.allclose(logits.sum(-1), torch.ones(2, 7), atol=1e-4):
        raise fail(
            _("{call}: every row of the output is a probability distribution (sums to 1).").format(
                call=c
            ),
            "logits-softmaxed",
        )
    changed = tokens.clone()
    changed[:, 4:] = (changed[:, 4:] + 1) % vocab
    c2 = Call(label, changed, params="lm.forward")
    logits2 = expect_tensor(c2.run(obj, devices=False), c2, shape=(2, 7, vocab), what="the logits")
    diff = float((logits2[:, :4] - logits[:, :4]).abs().max())
    if diff > 1e-4:
        raise fail(
            _(sentences.LM_SEES_FUTURE).format(diff=fmt_num(diff), model=label),
            "not-causal",
        )
    _expect_prefix_logits(obj, label, tokens, logits)
    same = torch.full((1, 6), 3)
    c3 = Call(label, same, params="lm.forward")
    logits3 = expect_tensor(c3.run(obj, devices=False), c3, shape=(1, 6, vocab), what="the logits")
    if float((logits3 - logits3[:, :1]).abs().max()) < 1e-5:
        by_batch = positions_by_batch_index(obj, label)
        mistake = "positions-by-batch-index" if by_batch else "positions-missing"
        raise fail(_(sentences.LM_POSITIONS_MISSING).format(call=c3), mistake)
    expect_lm_in_training(sub, g, (vocab, d, h, layers, d_ff, max_len))
    expect_order_seen(sub, (vocab, d, h, 1, d_ff, max_len), tokens)
    start = torch.randint(0, vocab, (16, 1), generator=g)
    counting = (start + torch.arange(max_len)) % vocab  # (16, max_len): each token is the last + 1
    losses = fitted(obj, Call(label, counting, params="lm.forward"), 40, 3e-3)  # trains it
    if not losses or not losses[-1] < 0.6 * losses[0]:
        shown = " → ".join(fmt_num(v) for v in (losses[:1] + losses[-1:]))
        raise fail(_(sentences.LM_DOES_NOT_COUNT).format(model=label, loss=shown))
    expect_copies(sub, g, (vocab, d, h, layers, d_ff, max_len))
    expect_self_seen(sub, (vocab, d, h, layers, d_ff, max_len), tokens)
    expect_arguments_used(sub)
    try:
        expect_gpt2_layout(obj, label, info, g, tokens, d)  # the lesson's architecture, last
    except CheckFailure as failure:
        if failure.mistake == "lm-post-ln-blocks":
            _expect_pre_ln_block(sub, label, d, h, d_ff)  # or the blocks' own Pre-LN is wrong
        raise
    expect_tiny_layout(sub, g, (vocab, d, h, layers, d_ff, max_len), tokens)
    c.run(obj)  # the tensors it makes must follow the tokens' device
    with on_meta():  # meta tensors have shapes but no data
        obj.to("meta")
        c = Call(
            label + ".to('meta')",
            torch.empty(2, 5, dtype=torch.long, device="meta"),
            params="lm.forward",
        )
        expect_meta(c.run(obj), c, (2, 5, vocab), torch.float32, what="the logits")


def _expect_prefix_logits(obj, label, tokens, logits) -> None:
    """Causal: the first 4 tokens alone give the logits that the longer input gave them (positions
    counted from the end, or scaled by the length, break this without seeing a future token)."""
    c = Call(label, tokens[:, :4], params="lm.forward")
    short = expect_tensor(c.run(obj, devices=False), c, shape=(2, 4, logits.shape[-1]))
    diff = float((short - logits[:, :4]).abs().max())
    if diff > 1e-4:
        raise fail(
            _(sentences.LM_DEPENDS_ON_LENGTH).format(model=label, diff=fmt_num(diff)),
            "lm-depends-on-length",
        )


def _expect_pre_ln_block(sub, model, d, h, d_ff) -> None:
    """Blocks that normalise the residual stream are Post-LN, or a TransformerBlock whose own
    Pre-LN (its default) is wrong: judged alone, such a block names its mistake instead."""
    g = generator(17)
    try:
        obj, label = construct(sub, "TransformerBlock", d, h, d_ff)
        state = block_state(g, d, d_ff)
        load_weights(obj, state, label)
        obj.eval()
        x = randn(g, 2, 3, d)
        c = Call(label, x, params="forward")
        expect_close(c.run(obj), block(state, h, x), c, mutants=block_mutants(state, h, True))
    except CheckFailure as failure:
        if failure.mistake in ("residual-from-normed-input", "pre-post-ln-swapped"):
            raise fail(
                _(
                    "{model}'s blocks normalise the residual stream: {block}, built with its "
                    "default norm_first=True, is not a Pre-LN block."
                ).format(model=model, block=label),
                failure.mistake,
            ) from None


def _runs_on(obj, label, vocab, shape) -> bool:
    """A model that fails on (2, 7) tokens but runs on ``shape`` ones: on (7, 7), it reads the
    sequence length from the batch dimension (a causal mask or positions sized by
    tokens.size(0)); on (2, max_len), it builds them for max_len positions."""
    c = Call(label, torch.zeros(*shape, dtype=torch.long), params="lm.forward")
    try:
        out = c.run(obj, devices=False)
    except CheckFailure:
        return False
    return isinstance(out, torch.Tensor) and tuple(out.shape) == (*shape, vocab)


def _rules_feed_forward(sub) -> None:
    obj, label = construct(sub, "FeedForward", 4, 8)
    c = Call(label, randn(generator(115), 1, 1, 4), params="forward")
    expect_contract_rules(obj, c, (1, 1, 4), output=None)
    expect_true_gradients(*train_with_dropout(sub, "FeedForward", 4, 8))
    expect_module_calls(sub, "FeedForward", (4, 8), (2, 4, 4))


def _rules_block(sub) -> None:
    obj, label = construct(sub, "TransformerBlock", 4, 1, 8)
    obj.eval()
    c = Call(label, randn(generator(116), 1, 1, 4), params="forward")
    expect_contract_rules(obj, c, (1, 1, 4), output=None)
    expect_true_gradients(obj, wide_call(label, 126, (1, 3, 4), params=c))
    causal = torch.ones(3, 3, dtype=torch.bool).tril()  # gradients flow under a mask too
    expect_true_gradients(obj, wide_call(label, 128, (1, 3, 4), params=c, mask=causal))
    expect_true_gradients(*train_with_dropout(sub, "TransformerBlock", 4, 2, 8))
    expect_module_calls(sub, "TransformerBlock", (4, 2, 8), (2, 4, 4), masked=True)
    kwargs = {"dropout": 0.1, "norm_first": False}
    x = randn(generator(119), 2, 3, 4)
    expect_same_by_position(sub, "TransformerBlock", (4, 2, 8), kwargs, x)


def _rules_tiny(sub) -> None:
    obj, label = construct(sub, "TinyTransformer", 5, 8, 1, 1, 16, 4)
    obj.eval()
    c = Call(label, torch.zeros(1, 1, dtype=torch.long), params="lm.forward")
    expect_scores_used(obj, c)
    expect_contract_rules(obj, c, (1, 1, 5), output=None)
    tokens = torch.arange(8).view(2, 4) % 5
    expect_true_gradients(obj, Call(label, tokens, params="lm.forward"))  # e.g. a tied head
    try:
        expect_module_calls(
            sub, "TinyTransformer", (5, 8, 2, 1, 16, 4), tokens, params="lm.forward"
        )
    except CheckFailure as failure:  # eval mode was deterministic (checked before): training only
        if failure.mistake == "dropout-always-on":
            failure.mistake = "lm-dropout-of-its-own"
            failure.message = _(
                "{first} TinyTransformer takes no dropout argument: it has no dropout."
            ).format(first=failure.message)
        raise


check_feed_forward = with_rules(check_feed_forward, _rules_feed_forward)
check_transformer_block = with_rules(check_transformer_block, _rules_block)
check_tiny_transformer = naming_batch_mask(with_rules(check_tiny_transformer, _rules_tiny))

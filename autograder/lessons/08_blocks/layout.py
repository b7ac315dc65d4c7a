"""Lesson 08: ``TinyTransformer``'s layout beyond its blocks. GPT-2 adds the positions once,
before the first block, and applies the final LayerNorm once, after the last: with every block
made the identity, one block or two then give the same logits. Token 0 is a token like any
other: its embedding trains, and attention sees it."""

from __future__ import annotations

import re

import torch

from autograder.i18n import N_, _
from autograder.kit import Call, LearnerError, construct, fail, fmt_num, randn
from autograder.kit.exercise import CheckFailure
from autograder.kit.gradients import remote_function
from autograder.kit.lm_layout import BLOCK_PARAM, SUBLAYER_OUT, block_names
from autograder.kit.repeat import paused

BATCH_MASK = N_(
    "TinyTransformer(5, 8, 2, 1, 16, 4) runs on 2 sequences (as many as its heads) but raises "
    "on 3: the mask is (B, L, L), whose B lines up with the heads of the (B, h, L, L) scores; "
    "pass the causal mask as (L, L)."
)
LENGTH_FROM_BATCH = N_(
    "TinyTransformer(5, 8, 2, 1, 16, 4) runs on 1 sequence but raises on 2: the length L is read "
    "from something that grows with the batch (tokens.numel(), say); L is tokens.size(1)."
)
TOKEN_TABLE = N_(
    "On tokens that are all 0, the token embedding's rows 1 to L - 1 get a gradient: the "
    "positions are looked up in the token table, so position p is token p; positions need a "
    "table (or encoding) of their own, max_len long."
)
ATTN_QK = re.compile(r"(^|\.)attn\.w_[qk]\.weight$")


def expect_tiny_layout(sub, g, args, tokens) -> None:
    """What GPT-2 does once, done once; token 0 used like any other token (on a new model: the
    checks before this one set weights of their own)."""
    expect_token_zero_used(*construct(sub, "TinyTransformer", *args), args[0], args[1])
    with paused():  # the same calls on weights loaded anew
        expect_once_per_model(sub, g, args, tokens)


def expect_once_per_model(sub, g, args, tokens) -> None:
    """TinyTransformer(..., num_layers=1) and (..., num_layers=2) with every block the identity
    (attn.w_o and ff.linear2 zero) and the same weights outside the blocks: the same logits.
    Where they differ, the same again with the final norm's weight 1 and bias 0 (LayerNorm twice
    is then LayerNorm once) tells a norm after every block from positions added before each."""
    vocab, d, h, _layers, d_ff, max_len = args
    models = [construct(sub, "TinyTransformer", vocab, d, h, n, d_ff, max_len) for n in (1, 2)]
    infos = [obj.apply("describe") for obj, _label in models]
    if not all(block_names(info) for info in infos):
        return  # blocks of its own: nothing to recognise them by
    params = infos[1].get("parameters", {})
    state = {
        n: torch.zeros(shape) if SUBLAYER_OUT.search(n) else randn(g, *shape)
        for n, shape in params.items()
    }
    if any(n not in state for n in infos[0].get("parameters", {})):
        return  # the blocks are named otherwise in the two models
    unit = {  # every LayerNorm outside the blocks: weight 1, bias 0
        n: (torch.ones_like(t) if n.endswith("weight") else torch.zeros_like(t))
        if t.dim() == 1 and t.shape[0] == d and not BLOCK_PARAM.match(n)
        else t
        for n, t in state.items()
    }
    moved = []
    for weights in (state, unit):
        logits = []
        for (obj, label), info in zip(models, infos, strict=True):
            own = {n: weights[n] for n in info.get("parameters", {})}
            try:
                obj.apply("load_state_dict", own)
            except LearnerError:
                return  # buffers or parameters describe() does not list: can't set every weight
            obj.eval()
            logits.append(Call(label, tokens, params="lm.forward").run(obj, devices=False))
        a, b = logits
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
            return
        moved.append(float((a - b).abs().max()))
    if moved[0] <= 1e-4 * max(float(a.abs().max()), 1e-6):
        return
    label = models[1][1]
    if moved[1] <= 1e-4 * max(float(a.abs().max()), 1e-6):
        raise fail(
            _(
                "{model}: with every block the identity (attn.w_o and ff.linear2 zero), one "
                "block or two give logits up to {moved} apart, and the same once the final "
                "LayerNorm's weight is 1 and its bias 0: the final norm is applied after every "
                "block, where it belongs once, after the last."
            ).format(model=label, moved=fmt_num(moved[0])),
            "lm-final-norm-every-block",
        )
    raise fail(
        _(
            "{model}: with every block the identity (attn.w_o and ff.linear2 zero), one block or "
            "two give logits up to {moved} apart: something outside the blocks is added once per "
            "block, such as the positions before every block; GPT-2 adds them once, before the "
            "first."
        ).format(model=label, moved=fmt_num(moved[0])),
        "positions-every-block",
    )


def expect_token_zero_used(obj, label, vocab, d) -> None:
    """Tokens that are all 0: the token embedding's row 0 gets a gradient (no padding_idx=0),
    and so do the blocks' attn.w_q and attn.w_k (no mask that hides token 0 as a key)."""
    tokens = torch.zeros(2, 5, dtype=torch.long)
    c = Call(label, tokens, params="lm.forward")
    grads = _gradients(obj, c, tokens)
    if not grads:
        return
    tables = [g for g in grads.values() if isinstance(g, torch.Tensor) and g.shape == (vocab, d)]
    inputs = [g for g in tables if float(g[1:].abs().max()) == 0]  # read by token 0 alone
    if inputs and all(float(g[0].abs().max()) == 0 for g in inputs):
        raise fail(
            _(
                "{call}: the token embedding's row for token 0 gets no gradient: "
                "nn.Embedding(..., padding_idx=0) keeps token 0's vector at zero, and it never "
                "trains; token 0 is a token like any other here."
            ).format(call=c),
            "lm-token-0-is-padding",
        )
    if _qk_blind(grads) and not _qk_blind(_gradients(obj, c, tokens + 1)):  # token 1 is seen
        raise fail(
            _(
                "{call}: on tokens that are all 0, no gradient reaches any block's attn.w_q or "
                "attn.w_k: the attention hides token 0 from every query, as padding; token 0 is a "
                "token like any other, and the causal mask is the model's only mask."
            ).format(call=c),
            "lm-token-0-is-padding",
        )


def positions_by_batch_index(obj, label) -> bool:
    """Two sequences of one repeated token: logits the same along each sequence but different
    between the two are positions looked up by the batch index."""
    with paused():
        c = Call(label, torch.full((2, 6), 3), params="lm.forward")
        try:
            out = c.run(obj, devices=False)
        except CheckFailure:
            return False
    if not isinstance(out, torch.Tensor) or out.dim() != 3 or len(out) != 2:
        return False
    along = float((out - out[:, :1]).abs().max())
    return along < 1e-5 < float((out[0] - out[1]).abs().max())


def naming_batch_mask(check):
    """The check ``check``; when it fails with no mistake named, a mask made per sequence: a new
    TinyTransformer(5, 8, 2, 1, 16, 4) runs on as many sequences as it has heads but raises on
    three (a (B, L, L) mask lines B up with the heads of (B, h, L, L) scores)."""

    def named(sub) -> None:
        try:
            check(sub)
        except CheckFailure as failure:
            if failure.mistake in (None, "breaks-autograd"):
                if _positions_from_token_table(sub):
                    failure.message = _first_line(failure) + _(TOKEN_TABLE)
                    failure.mistake = "positions-from-token-table"
            if failure.mistake is None and _fails_on_three_sequences(sub):
                failure.message = _first_line(failure) + _(BATCH_MASK)
                failure.mistake = "lm-mask-per-sequence"
            if failure.mistake is None and _fails_on_two_sequences(sub):
                failure.message = _first_line(failure) + _(LENGTH_FROM_BATCH)
                failure.mistake = "seq-len-from-batch-dim"
            raise
        except LearnerError as err:  # raised in a sandbox helper (the training loop)
            said = _("{name} raised {problem}").format(name="TinyTransformer", problem=err)
            said += f"\n{err.traceback.splitlines()[-1]}" if err.traceback else ""
            for probe, line, mistake in (
                (_positions_from_token_table, TOKEN_TABLE, "positions-from-token-table"),
                (_fails_on_three_sequences, BATCH_MASK, "lm-mask-per-sequence"),
                (_fails_on_two_sequences, LENGTH_FROM_BATCH, "seq-len-from-batch-dim"),
            ):
                if probe(sub):
                    raise fail(said + "\n" + _(line), mistake) from None
            raise

    named.__exercise__ = check.__exercise__
    named.__name__, named.__doc__ = check.__name__, check.__doc__
    named.__module__ = check.__module__
    if hasattr(check, "contract_rules"):
        named.contract_rules = check.contract_rules
    return named


def _fails_on_more_sequences(sub, batch: int) -> bool:
    """The model runs on ``batch`` sequences of 4 tokens and raises on ``batch + 1``."""
    with paused():
        try:
            obj, label = construct(sub, "TinyTransformer", 5, 8, 2, 1, 16, 4)
            obj.eval()
            Call(label, torch.zeros(batch, 4, dtype=torch.long), params="lm.forward").run(obj)
        except CheckFailure:
            return False
        try:
            Call(label, torch.zeros(batch + 1, 4, dtype=torch.long), params="lm.forward").run(obj)
        except CheckFailure:
            return True
    return False


def _fails_on_three_sequences(sub) -> bool:
    return _fails_on_more_sequences(sub, 2)


def _fails_on_two_sequences(sub) -> bool:
    return _fails_on_more_sequences(sub, 1)


def _gradients(obj, c, tokens) -> dict:
    """Each parameter's gradient of the model's weighted logits on ``tokens`` (None: none)."""
    got = remote_function(obj, c.name).apply("gradients", (tokens,), {}, None, None)
    return got.get("params", {}) if isinstance(got, dict) and got.get("output_has_grad") else {}


def _qk_blind(grads) -> bool:
    """No gradient reaches any block's attn.w_q or attn.w_k: the scores do not count."""
    qk = [g for n, g in grads.items() if ATTN_QK.search(n)]
    return bool(qk) and all(g is None or float(g.abs().max()) == 0 for g in qk)


def _positions_from_token_table(sub) -> bool:
    """Tokens that are all 0, L = 3, in a vocabulary of 7: a (vocab, d) table with a gradient
    in rows 1..L-1 and none after them is read by position."""
    with paused():
        try:
            obj, label = construct(sub, "TinyTransformer", 7, 8, 2, 1, 16, 4)
            c = Call(label, torch.zeros(1, 3, dtype=torch.long), params="lm.forward")
            grads = _gradients(obj, c, c.args[0])
        except (CheckFailure, LearnerError):
            return False
    return any(
        isinstance(g, torch.Tensor)
        and g.shape == (7, 8)
        and float(g[1:3].abs().amax(-1).min()) > 0
        and float(g[3:].abs().max()) == 0
        for g in grads.values()
    )


def _first_line(failure) -> str:
    """The failure's first lines (its traceback's last frame), before the line that names it."""
    lines = failure.message.splitlines()
    return "\n".join(lines[:1] + lines[-1:] if len(lines) > 1 else lines) + "\n"

"""Dropout judged by its statistics: in training mode a fraction ≈ p of the values it acts on
are exactly 0 and the others are scaled by 1 / (1 - p); in eval mode nothing changes."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from autograder.i18n import N_, _
from autograder.kit import sentences
from autograder.kit.calling import Call, fail
from autograder.kit.compare import expect_close, expect_tensor
from autograder.kit.expected import block, feed_forward, mha
from autograder.kit.inputs import randn
from autograder.kit.modules import construct, load_weights
from autograder.kit.repeat import paused


def dropout_problem(out: torch.Tensor, clean: torch.Tensor, p: float) -> str | None:
    """None when ``out`` is ``clean`` under dropout with probability ``p``, else what is wrong:
    ``"ignored"`` (nothing dropped), ``"scale"`` (the kept values are not clean / (1 - p)) or
    ``"rate"`` (the fraction dropped is far from p)."""
    out, clean = out.double(), clean.double()
    live = clean != 0
    n = int(live.sum())
    dropped = (out == 0) & live
    if torch.allclose(out, clean, rtol=1e-4, atol=1e-5):
        return "ignored"
    kept = ~dropped
    if not torch.allclose(out[kept], clean[kept] / (1 - p), rtol=1e-3, atol=1e-4):
        return "scale"
    fraction = int(dropped.sum()) / max(n, 1)
    if abs(fraction - p) > 5 * (p * (1 - p) / max(n, 1)) ** 0.5 + 1 / max(n, 1):
        return "rate"
    return None


def _near(fraction: float, rate: float, n: int) -> bool:
    """Whether ``fraction`` of ``n`` independent draws is within the binomial spread of ``rate``."""
    return abs(fraction - rate) <= 5 * (rate * (1 - rate) / max(n, 1)) ** 0.5 + 1 / max(n, 1)


def wrong_dropout(out: torch.Tensor, clean: torch.Tensor, p: float, c, what: str):
    """The failure naming dropout that acts with the wrong mask, rate or scale (tell-tale at a p
    other than 0.5, where p and 1 - p coincide), else None. ``out`` (..., F): ``clean`` under the
    learner's dropout; ``what``: the values it acts on, in words."""
    out, clean = out.double(), clean.double()
    live = clean != 0
    n = int(live.sum())
    dropped = (out == 0) & live
    zero = int(dropped.sum()) / max(n, 1)
    columns = dropped.reshape(-1, out.shape[-1]).double().mean(0)
    if columns.numel() and out.numel() // out.shape[-1] >= 8 and bool(dropped.any()):
        if bool(((columns == 0) | (columns == 1)).all()):
            return fail(
                _(
                    "{call}: {what} are dropped by whole features ({count} of {width} columns are "
                    "0 in every row): dropout draws one mask for each value, not one per feature."
                ).format(call=c, what=what, count=int((columns == 1).sum()), width=out.shape[-1]),
                "dropout-mask-per-feature",
            )
    if p != 0.5 and _near(zero, 1 - p, n):
        return fail(
            _(
                "{call}: {zero:.0%} of {what} are 0, where dropout={p} drops {p:.0%}: p is "
                "used as the probability of keeping a value, not of dropping it."
            ).format(call=c, what=what, zero=zero, p=p),
            "dropout-keep-drop-swapped",
        )
    kept = ~dropped & live
    ratio = out[kept] / clean[kept]  # 1 / (1 - p) for the contract's dropout
    if not bool(kept.any()) or not torch.allclose(ratio, ratio.mean().expand_as(ratio), rtol=1e-3):
        return None
    scale = float(ratio.mean())
    if p != 0.5 and abs(scale * p - 1) < 1e-3 and _near(zero, p, n):
        return fail(
            _(
                "{call}: {zero:.0%} of {what} are 0 and the others are multiplied by "
                "{scale:.3g} = 1/{p}: the kept values are scaled by 1/(1 - p) = {want:.3g}."
            ).format(call=c, what=what, zero=zero, scale=scale, p=p, want=1 / (1 - p)),
            "dropout-wrong-scale",
        )
    q = 1 - 1 / scale
    if 0 < q < 1 and abs(q - p) > 0.01 and _near(zero, q, n):
        return fail(
            _(
                "{call}: {zero:.0%} of {what} are 0 and the others are the eval values / "
                "(1 - {q:.2g}): dropout acts with p={q:.2g}, not the dropout={p} it was given."
            ).format(call=c, what=what, zero=zero, q=q, p=p),
            "ffn-dropout-rate-ignored",
        )
    return None


def unscaled(out: torch.Tensor, clean: torch.Tensor) -> bool:
    """Some values dropped, and the others exactly the clean ones: no 1 / (1 - p) rescaling."""
    kept, dropped = out != 0, (out == 0) & (clean != 0)
    same = torch.allclose(out.double()[kept], clean.double()[kept], rtol=1e-4, atol=1e-5)
    return bool(kept.any()) and bool(dropped.any()) and same


def fraction_zero(out: torch.Tensor, clean: torch.Tensor) -> float:
    """The fraction of ``clean``'s nonzero values that are exactly 0 in ``out``."""
    live = clean != 0
    return float(((out == 0) & live).sum()) / max(int(live.sum()), 1)


def expect_ffn_dropout(sub, g, p, mutants=lambda state: ()) -> None:
    """Dropout in training, by its statistics, once eval mode with the same weights gives the
    expected output (else what differs is not dropout: ``mutants(state)`` name it). With linear2
    the identity (d_ff = d_model) and linear1's bias large (every ReLU active), dropout after the
    ReLU and after linear2 give the same output: a fraction ≈ p of eval's values are 0 and the
    others are scaled by 1 / (1 - p). Both placements are the contract's; dropout ignored or on
    the input is not."""
    n = 16
    obj2, label2 = construct(sub, "FeedForward", n, n, p)
    known = {
        "linear1.weight": randn(g, n, n) * n**-0.5,
        "linear1.bias": torch.full((n,), 12.0),
        "linear2.weight": torch.eye(n),
        "linear2.bias": torch.zeros(n),
    }
    load_weights(obj2, known, label2)
    x = randn(g, 64, n)
    clean = feed_forward(known, x)
    obj2.eval()  # these weights make every hidden value large: ReLU6, for one, differs here
    c = Call(label2 + ".eval()", x, params="forward")
    expect_close(c.run(obj2), clean, c, dtype=x.dtype, mutants=mutants(known))
    obj2.train()
    c = Call(label2 + ".train()", x, params="forward")
    out = expect_tensor(c.run(obj2), c, shape=x.shape, dtype=x.dtype)
    problem = dropout_problem(out, clean, p)
    named = wrong_dropout(out, clean, p, c, _("the values")) if problem is None else None
    if problem is None and named is None:
        return
    if named is not None:  # the right rate and scale on average, drawn per feature
        raise named
    zero = fraction_zero(out, clean)
    if problem == "ignored":
        raise fail(
            _(
                "{call}: the output equals eval's, so dropout={p} does nothing in training mode."
            ).format(call=c, p=p),
            "ffn-dropout-ignored",
        )
    if _scaled_twice(out, clean, p):
        raise fail(
            _(
                "{call}: {zero:.0%} of the values are 0 and the others are the eval values / "
                "(1 - {p})²: dropout acts twice."
            ).format(call=c, zero=zero, p=p),
            "ffn-dropout-twice",
        )
    z = (out.double() - known["linear1.bias"].double()) @ torch.linalg.inv(
        known["linear1.weight"].double()
    ).T  # what linear1 was given
    if bool(((z.abs() < 1e-3) | ((z - x.double() / (1 - p)).abs() < 1e-3)).all()):
        zeroed = float((z.abs() < 1e-3).double().mean())  # of x's values, not of the output's
        raise fail(
            _(
                "{call}: linear1 was given x with {zero:.0%} of its values zeroed and the others "
                "scaled by 1/(1-{p}): dropout acts on the input."
            ).format(call=c, zero=zeroed, p=p),
            "ffn-dropout-on-input",
        )
    if unscaled(out, clean):
        raise fail(
            _(sentences.DROPOUT_NOT_RESCALED).format(call=c, what=_("the values"), zero=zero, p=p),
            "dropout-not-rescaled",
        )
    named = wrong_dropout(out, clean, p, c, _("the values"))
    if named is not None:
        raise named
    raise fail(
        _(
            "{call}: {zero:.0%} of the hidden values are 0 in training mode, and the others are "
            "not the eval values / (1 - {p}); dropout with p={p} acts once, after the ReLU or "
            "after linear2."
        ).format(call=c, zero=zero, p=p)
    )


def expect_block_dropout(sub, g, known, h, p) -> None:
    """Training mode, by statistics: with the feed-forward's linear2 at zero the block is
    x + dropout(attn(norm1(x))), so out - x is the attention output with a fraction ≈ p zeroed and
    the rest scaled by 1 / (1 - p); with attention's w_o at zero, the feed-forward sublayer must
    be dropped somewhere too (in the block or in FeedForward). The residual stream x itself is
    never dropped: out has no zero where x has none."""
    d, d_ff = known["norm1.weight"].shape[0], known["ff.linear1.weight"].shape[0]
    obj, label = construct(sub, "TransformerBlock", d, h, d_ff, dropout=p)
    x = randn(g, 4, 16, d)
    for silent, sublayer in (("ff.linear2", N_("attention")), ("attn.w_o", N_("feed-forward"))):
        state = dict(known)
        state[f"{silent}.weight"] = torch.zeros_like(state[f"{silent}.weight"])
        state[f"{silent}.bias"] = torch.zeros_like(state[f"{silent}.bias"])
        load_weights(obj, state, label)
        obj.train()
        c = Call(label + ".train()", x, params="forward")
        out = expect_tensor(c.run(obj), c, shape=x.shape, dtype=x.dtype)
        obj.eval()
        clean = block(state, h, x) - x.double()  # the sublayer's eval output
        if bool((out == 0).any()):
            raise fail(
                _(
                    "{call}: {zeros} of the {count} outputs are exactly 0: dropout acts on the "
                    "residual stream, where it must act on each sublayer's output before the add."
                ).format(call=c, zeros=int((out == 0).sum()), count=out.numel()),
                "block-dropout-on-residual",
            )
        probe = None
        if sublayer == "attention":
            probe = lambda state=state: _weights_dropped(obj, label, state, h, p, x)  # noqa: E731
        _judge_sublayer(c, out.double() - x.double(), clean, p, sublayer, probe)
    obj, label = construct(sub, "TransformerBlock", d, h, d_ff, dropout=p, norm_first=False)
    x = x.clone()
    x[..., :3] = torch.tensor([-2.0, 0.0, 2.0])  # the anchors' residual: spread, for the fit
    for silent, sublayer in (("ff.linear2", N_("attention")), ("attn.w_o", N_("feed-forward"))):
        _expect_post_ln_sublayer(obj, label, known, h, p, x, silent, sublayer)


def _expect_post_ln_sublayer(obj, label, known, h, p, x, silent, sublayer, anchors=3) -> None:
    """Post-LN, with the other sublayer silent and both LayerNorms plain (weight 1, bias 0): the
    output is norm2(norm1(r + dropout(s))), per row an affine map of z = r + dropout(s), where r is
    the residual (x, or norm1(x) before the feed-forward) and s the sublayer's output. The live
    sublayer's first ``anchors`` features are 0, never dropped, so z = r there: they give the
    affine map, and z - r elsewhere is the sublayer's output under dropout."""
    d = x.shape[-1]
    state = dict(known)
    for norm in ("norm1", "norm2"):
        state[f"{norm}.weight"], state[f"{norm}.bias"] = torch.ones(d), torch.zeros(d)
    state[f"{silent}.weight"] = torch.zeros_like(state[f"{silent}.weight"])
    state[f"{silent}.bias"] = torch.zeros_like(state[f"{silent}.bias"])
    live = "attn.w_o" if silent == "ff.linear2" else "ff.linear2"
    for part in ("weight", "bias"):
        state[f"{live}.{part}"] = state[f"{live}.{part}"].clone()
        state[f"{live}.{part}"][:anchors] = 0
    load_weights(obj, state, label)
    obj.train()
    c = Call(label + ".train()", x, params="forward")
    out = expect_tensor(c.run(obj), c, shape=x.shape, dtype=x.dtype).double()
    if bool((out == 0).any()):  # Post-LN: norm(x + dropout(sublayer)), never dropout(norm(...))
        raise fail(
            _(
                "{call}: {zeros} of the {count} outputs are exactly 0: dropout acts after the "
                "LayerNorm, on the residual stream; drop each sublayer's output before the add."
            ).format(call=c, zeros=int((out == 0).sum()), count=out.numel()),
            "block-dropout-on-residual",
        )
    if sublayer == "attention":
        attn = {k.removeprefix("attn."): v for k, v in state.items() if k.startswith("attn.")}
        r, clean = x.double(), mha(attn, h, x)[0]
    else:
        r = F.layer_norm(x.double(), (d,), eps=1e-5)
        clean = feed_forward(state, r, "ff.")
    ra, oa = r[..., :anchors], out[..., :anchors]  # out = alpha * z + beta on each row
    rc, oc = ra - ra.mean(-1, keepdim=True), oa - oa.mean(-1, keepdim=True)
    alpha = (rc * oc).sum(-1, keepdim=True) / (rc * rc).sum(-1, keepdim=True)
    beta = oa.mean(-1, keepdim=True) - alpha * ra.mean(-1, keepdim=True)
    if float((alpha * ra + beta - oa).abs().max()) > 1e-3 * float(oa.abs().max()):
        raise fail(
            _(
                "{call}: the output is not a LayerNorm of x + dropout(sublayer): dropout acts "
                "on the residual stream; drop each sublayer's output before the add."
            ).format(call=c),
            "block-dropout-on-residual",
        )
    moved = (out - beta) / alpha - r
    moved = torch.where(moved.abs() < 1e-4, torch.zeros_like(moved), moved)  # dropped: 0
    _judge_sublayer(c, moved[..., anchors:], clean[..., anchors:], p, sublayer)


def _weights_dropped(obj, label, state, h, p, x) -> bool:
    """Pre-LN, the feed-forward silent: with attn.w_v's weight at 0 every value is its bias, so
    attention's output is w_o(b_v) whatever its weights, as long as each row of them sums to 1.
    An output that is then not that under dropout p (dropped or kept whole) is attention whose
    weights are dropped; dropout on the sublayer's input leaves it as it is."""
    state = dict(state)
    state["attn.w_v.weight"] = torch.zeros_like(state["attn.w_v.weight"])
    load_weights(obj, state, label)
    obj.train()
    c = Call(label + ".train()", x, params="forward")
    with paused():
        out = expect_tensor(c.run(obj), c, shape=x.shape, dtype=x.dtype)
    clean = block(state, h, x) - x.double()
    return dropout_problem(out.double() - x.double(), clean, p) not in (None, "ignored")


def _judge_sublayer(c, moved, clean, p, sublayer, weights_dropped=None) -> None:
    """``moved``: what the block added to the residual in training mode; ``clean``: the
    sublayer's eval output. Fails, naming the mistake, unless it is clean under dropout p.
    ``weights_dropped``: a probe, true where attention's weights are dropped."""
    problem = dropout_problem(moved, clean, p)
    what = _("the {sublayer} sublayer's outputs").format(sublayer=_(sublayer))
    if problem == "ignored":
        raise fail(
            _(
                "{call}: the {sublayer} sublayer's output is the same as in eval mode: "
                "dropout={p} is never applied to it."
            ).format(call=c, sublayer=_(sublayer), p=p),
            "block-dropout-ignored",
        )
    if problem is not None and unscaled(moved, clean):
        raise fail(
            _(sentences.DROPOUT_NOT_RESCALED).format(
                call=c,
                what=what,
                zero=fraction_zero(moved, clean),
                p=p,
            ),
            "dropout-not-rescaled",
        )
    if problem is not None and sublayer == "feed-forward" and _dropped_twice(moved, clean, p):
        raise fail(
            _(
                "{call}: {zero:.0%} of the feed-forward sublayer's outputs are 0 and the others "
                "are its eval values / (1 - {p})²: its output is dropped twice, after linear2 in "
                "FeedForward and again in the block."
            ).format(call=c, zero=fraction_zero(moved, clean), p=p),
            "block-dropout-twice-on-ffn",
        )
    named = wrong_dropout(moved, clean, p, c, what) if sublayer == "attention" else None
    if named is not None and named.mistake == "ffn-dropout-rate-ignored":
        named.mistake = "block-dropout-rate-ignored"  # the block's dropout1, in its own words
    if named is not None:
        raise named
    if problem is not None and weights_dropped is not None and weights_dropped():
        raise fail(
            _(
                "{call}: the attention sublayer changes in training mode even with attn.w_v's "
                "weight at 0, which makes its output the same whatever the attention weights: "
                "dropout acts on those weights. The block's dropout acts only on each sublayer's "
                "output, before the residual add (dropout1, dropout2)."
            ).format(call=c),
            "block-dropout-on-attention-weights",
        )
    if problem is not None and sublayer == "attention" and not bool((moved == 0).any()):
        raise fail(
            _(
                "{call}: none of the attention sublayer's outputs is 0, yet they are not its "
                "eval values: dropout acts on the sublayer's input; drop its output instead."
            ).format(call=c),
            "block-dropout-on-sublayer-input",
        )
    if problem is not None and sublayer == "attention":
        raise fail(
            _(
                "{call}: {zero:.0%} of the attention sublayer's outputs are 0 and the others "
                "are not its eval values / (1 - {p}); dropout with p={p} acts once on it, "
                "before the residual add."
            ).format(call=c, zero=fraction_zero(moved, clean), p=p)
        )


def _scaled_twice(out: torch.Tensor, clean: torch.Tensor, p: float) -> bool:
    """Whether the values of ``out`` that are not 0 are ``clean``'s scaled by 1 / (1 - p)²: the
    rescaling of dropout p applied twice in a row."""
    out, clean = out.double(), clean.double()
    kept = out != 0
    twice = clean[kept] / (1 - p) ** 2
    return bool(kept.any()) and torch.allclose(out[kept], twice, rtol=1e-3, atol=1e-4)


def _dropped_twice(moved: torch.Tensor, clean: torch.Tensor, p: float) -> bool:
    """Dropout p twice in a row on the same values: about 1 - (1 - p)² of them 0, the others
    scaled by 1 / (1 - p)² (GPT-2's FeedForward, dropping after linear2, inside a block that
    drops its output again)."""
    live = clean != 0
    dropped = (moved == 0) & live
    n = int(live.sum())
    return _scaled_twice(moved, clean, p) and _near(
        int(dropped.sum()) / max(n, 1), 1 - (1 - p) ** 2, n
    )

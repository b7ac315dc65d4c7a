"""Checks of the language-modelling drills: the causal LM loss with padding, decoding with a KV
cache, top-k and nucleus (top-p) sampling probabilities."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from autograder.drill.extra.decode_probe import decode_log, expect_cache_used
from autograder.drill.extra.judging import (
    BriefCall,
    expect,
    expect_gradients,
    fail,
    flat_gradients,
    float64_gradients,
    gradients,
    run,
)
from autograder.i18n import N_, _
from autograder.kit import Call, generator, randn
from autograder.kit.exercise import CheckFailure
from autograder.kit.text import fmt_dtype, fmt_value

# ---- the causal LM loss ----------------------------------------------------------------------


def lm_loss(
    logits,
    tokens,
    pad_id,
    *,
    shift=1,
    ignore=True,
    mean_over_all=False,
    total=False,
    mask_from_inputs=False,
    per_sequence=False,
):
    V = logits.shape[-1]
    if shift == 1:
        lg, tg = logits[:, :-1], tokens[:, 1:]
    elif shift == -1:
        lg, tg = logits[:, 1:], tokens[:, :-1]
    else:
        lg, tg = logits, tokens
    losses = F.cross_entropy(lg.reshape(-1, V), tg.reshape(-1), reduction="none")
    real = tokens[:, :-1] if mask_from_inputs else tg
    keep = (real.reshape(-1) != pad_id) if ignore else torch.ones_like(losses, dtype=torch.bool)
    if per_sequence:
        rows, kept_rows = losses.reshape(tg.shape), keep.reshape(tg.shape)
        return ((rows * kept_rows).sum(1) / kept_rows.sum(1)).mean()
    kept = losses[keep].sum()
    if total:
        return kept
    return kept / (losses.numel() if mean_over_all else keep.sum())


LM_MUTANTS = (
    ("lm-loss-not-shifted", lambda lg, t, p: lm_loss(lg, t, p, shift=0)),
    ("lm-loss-shifted-wrong-way", lambda lg, t, p: lm_loss(lg, t, p, shift=-1)),
    ("lm-loss-pads-counted", lambda lg, t, p: lm_loss(lg, t, p, ignore=False)),
    ("lm-loss-mean-over-pads", lambda lg, t, p: lm_loss(lg, t, p, mean_over_all=True)),
    ("lm-loss-summed", lambda lg, t, p: lm_loss(lg, t, p, total=True)),
    ("lm-loss-pad-mask-from-inputs", lambda lg, t, p: lm_loss(lg, t, p, mask_from_inputs=True)),
    ("lm-loss-mean-per-sequence", lambda lg, t, p: lm_loss(lg, t, p, per_sequence=True)),
)


def _padded(g, B, L, V, pad_id, lengths):
    tokens = torch.randint(0, V, (B, L), generator=g)
    tokens[tokens == pad_id] = (pad_id + 1) % V
    for b, n in enumerate(lengths):
        tokens[b, n:] = pad_id
    return tokens


def check_lm_loss(sub) -> None:
    g = generator(53)
    V = 7
    # no padding first (the shift alone), then pad 0 or 4, then L = 2
    cases = ((2, 6, 0, (6, 6)), (2, 6, 0, (6, 3)), (3, 5, 4, (2, 5, 4)), (1, 2, 0, (2,)))
    for B, L, pad_id, lengths in cases:
        logits, tokens = randn(g, B, L, V) * 2, _padded(g, B, L, V, pad_id, lengths)
        c = BriefCall("causal_lm_loss", logits, tokens, pad_id)
        want = lm_loss(logits.double(), tokens, pad_id)
        out = run(c, sub, LM_MUTANTS)
        if isinstance(out, torch.Tensor) and out.dim() == 1 and out.numel() == 1:
            raise fail(
                _("{call} returned a tensor of shape (1,); the loss is a scalar, shape ().").format(
                    call=c
                )
            )
        try:
            expect(out, want, c, LM_MUTANTS, what=N_("the loss"), dtype=torch.float32)
        except CheckFailure as e:
            pads = [(b, t) for b, t in (tokens[:, 1:] == pad_id).nonzero().tolist()]
            where = _(", ").join(f"[{b}, {t}]" for b, t in pads) or _("none")
            said = _("(pad_id {pad_id}; padded targets, tokens[:, 1:] at: {where})")
            raise fail(
                e.message + "\n" + said.format(pad_id=pad_id, where=where), e.mistake
            ) from None
    logits, tokens = randn(g, 2, 6, V), _padded(g, 2, 6, V, 0, (6, 3))
    weight = torch.tensor(1.0)
    got = flat_gradients(gradients(sub, "causal_lm_loss", weight, logits, tokens, 0))
    want = float64_gradients(lambda lg: lm_loss(lg, tokens, 0), weight, logits)
    expect_gradients(got, want, "causal_lm_loss (backward)", mistake=None)


# ---- decoding with a KV cache ----------------------------------------------------------------


def make_params(g, V=11, d=6, max_len=16):
    return {
        "embed": randn(g, V, d),
        "pos": randn(g, max_len, d) * 0.5,
        "w_q": randn(g, d, d) * d**-0.5,
        "w_k": randn(g, d, d) * d**-0.5,
        "w_v": randn(g, d, d) * d**-0.5,
        "w_o": randn(g, d, d) * d**-0.5,
        "unembed": randn(g, d, V),
    }


def model(
    params, tokens, start=0, *, causal=True, offset=0, past_kv=None, keep_cache=True, shift=True
):
    """The tiny model's logits for ``tokens`` at positions start.., after ``past_kv``
    (``shift=False``: the causal mask not moved past the cached keys, tril() alone)."""
    p = {k: v.double() for k, v in params.items()}
    T = tokens.shape[1]
    h = p["embed"][tokens] + p["pos"][torch.arange(start + offset, start + offset + T)]
    q, k, v = h @ p["w_q"], h @ p["w_k"], h @ p["w_v"]
    if past_kv is not None:
        k, v = torch.cat([past_kv[0].double(), k], 1), torch.cat([past_kv[1].double(), v], 1)
    past = k.shape[1] - T
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        allowed = torch.ones(T, past + T, dtype=torch.bool).tril(diagonal=past if shift else 0)
        s = s.masked_fill(~allowed, float("-inf"))
    logits = (h + torch.softmax(s, -1) @ v @ p["w_o"]) @ p["unembed"]
    new_k, new_v = (k, v) if keep_cache else (k[:, past:], v[:, past:])
    return logits, (new_k, new_v)


def step_mutants():
    def restart(params, tokens, cache=None):
        return model(params, tokens, 0, past_kv=cache)

    return (
        (
            "kv-prefill-not-causal",
            lambda p, t, cache=None: model(
                p, t, 0 if cache is None else cache[0].shape[1], causal=False, past_kv=cache
            ),
        ),
        ("kv-positions-restart", restart),
        (
            "kv-mask-not-offset",
            lambda p, t, cache=None: model(
                p, t, 0 if cache is None else cache[0].shape[1], past_kv=cache, shift=False
            ),
        ),
        (
            "kv-cache-not-stored",
            lambda p, t, cache=None: model(
                p, t, 0 if cache is None else cache[0].shape[1], past_kv=cache, keep_cache=False
            ),
        ),
    )


def _expect_step(out, want, c, mutants):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise fail(
            _("{call} returned {value}; expected a tuple (logits, cache).").format(
                call=c, value=fmt_value(out)
            )
        )
    logits, cache = out
    firsts = tuple((m, lambda *a, fn=fn, **k: fn(*a, **k)[0]) for m, fn in mutants)
    expect(logits, want[0], c, firsts, what=N_("the logits"), dtype=torch.float32)
    if not isinstance(cache, (tuple, list)) or len(cache) != 2:
        raise fail(
            _("{call}: the cache is {value}; expected a tuple (k_all, v_all).").format(
                call=c, value=fmt_value(cache)
            )
        )
    named = (N_("the cache's k_all"), N_("the cache's v_all"))
    for i, (what, yours, w) in enumerate(zip(named, cache, want[1], strict=True)):
        parts = tuple((m, lambda *a, fn=fn, i=i, **k: fn(*a, **k)[1][i]) for m, fn in mutants)
        expect(yours, w, c, parts, what=what, dtype=torch.float32)
    return cache


def check_decode_step(sub) -> None:
    g = generator(59)
    params = make_params(g)
    mutants = step_mutants()
    prompt = torch.randint(0, 11, (2, 4), generator=g)
    c = BriefCall("decode_step", params, prompt)
    cache = _expect_step(run(c, sub, mutants), model(params, prompt), c, mutants)
    full = prompt
    for _step in range(3):  # one new token at a time, after the cache
        nxt = torch.randint(0, 11, (2, 1), generator=g)
        c = BriefCall("decode_step", params, nxt, cache=tuple(cache))
        want = model(params, nxt, full.shape[1], past_kv=cache)
        everything = model(params, torch.cat([full, nxt], 1))[0][:, -1:]
        assert torch.allclose(want[0], everything)  # the check's own consistency
        cache = _expect_step(run(c, sub, mutants), want, c, mutants)
        full = torch.cat([full, nxt], 1)
    two = torch.randint(0, 11, (2, 2), generator=g)  # two new tokens: causal among themselves
    c = BriefCall("decode_step", params, two, cache=tuple(cache))
    _expect_step(run(c, sub, mutants), model(params, two, full.shape[1], past_kv=cache), c, mutants)


def greedy(params, prompt, n, *, drop_prompt=False, wrong_dim=False):
    tokens = prompt
    for _step in range(n):
        logits = model(params, tokens)[0][:, -1]
        nxt = logits.argmax(0 if wrong_dim else -1)
        nxt = nxt[: tokens.shape[0]] if wrong_dim else nxt
        tokens = torch.cat([tokens, nxt.reshape(-1, 1)[: tokens.shape[0]]], 1)
    return tokens[:, prompt.shape[1] :] if drop_prompt else tokens


def check_greedy_decode(sub) -> None:
    g = generator(61)
    params = make_params(g)
    mutants = (("greedy-drops-the-prompt", lambda p, t, n: greedy(p, t, n, drop_prompt=True)),)
    for prompt, n in (
        (torch.randint(0, 11, (2, 3), generator=g), 5),
        (torch.randint(0, 11, (1, 1), generator=g), 4),
    ):
        c = BriefCall("greedy_decode", params, prompt, n)
        before = len(decode_log(sub, c))
        out = run(c, sub, mutants)
        want = greedy(params, prompt, n)
        if isinstance(out, torch.Tensor) and out.dtype != torch.int64:
            raise fail(
                _("{call} returned dtype {dtype}; token ids are torch.long.").format(
                    call=c, dtype=fmt_dtype(out.dtype)
                )
            )
        expect(out, want, c, mutants, what=N_("the tokens"))
        expect_cache_used(sub, c, before, prompt.shape[1], n)


# ---- top-k and top-p -------------------------------------------------------------------------


def _tempered(logits, temperature, multiply=False, ignore=False):
    if ignore:
        return logits
    return logits * temperature if multiply else logits / temperature


def top_k(
    logits, k, temperature=1.0, *, renorm=True, largest=True, extra=0, multiply=False, cold=False
):
    z = _tempered(logits, temperature, multiply, cold)
    k = min(k + extra, z.shape[-1])
    idx = torch.topk(z, k, dim=-1, largest=largest).indices
    probs = torch.softmax(z, -1)
    keep = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, idx, True)
    if renorm:
        return torch.softmax(z.masked_fill(~keep, float("-inf")), -1)
    return probs * keep


def top_p(
    logits,
    p,
    temperature=1.0,
    *,
    renorm=True,
    crossing=True,
    unsorted=False,
    multiply=False,
    cold=False,
    scatter=True,
    late=False,
):
    """Nucleus probabilities, or a known mistake's: ``scatter=False`` returns them in sorted
    order; ``late`` chooses the nucleus at temperature 1 and applies the temperature after."""
    z = _tempered(logits, temperature, multiply, cold)
    probs = torch.softmax(logits if late else z, -1)
    if unsorted:
        before = probs.cumsum(-1) - probs
        keep = before < p if crossing else probs.cumsum(-1) <= p
    else:
        sp, order = probs.sort(-1, descending=True)
        before = sp.cumsum(-1) - sp
        ks = before < p if crossing else sp.cumsum(-1) <= p
        if crossing == "keep-top":  # drops the crossing token, but never the top one
            ks = (sp.cumsum(-1) <= p) | (before == 0)
        if not scatter:
            kept = sp * ks
            return kept / kept.sum(-1, keepdim=True)
        keep = torch.zeros_like(ks).scatter(-1, order, ks)
    kept = (torch.softmax(z, -1) if late else probs) * keep
    return kept / kept.sum(-1, keepdim=True) if renorm else kept


TOPK_MUTANTS = (
    (
        "sampling-not-renormalised",
        lambda lg, k, temperature=1.0: top_k(lg, k, temperature, renorm=False),
    ),
    (
        "top-k-keeps-the-smallest",
        lambda lg, k, temperature=1.0: top_k(lg, k, temperature, largest=False),
    ),
    ("top-k-off-by-one", lambda lg, k, temperature=1.0: top_k(lg, k, temperature, extra=1)),
    ("top-k-off-by-one", lambda lg, k, temperature=1.0: top_k(lg, k, temperature, extra=-1)),
    (
        "temperature-multiplied",
        lambda lg, k, temperature=1.0: top_k(lg, k, temperature, multiply=True),
    ),
    ("temperature-ignored", lambda lg, k, temperature=1.0: top_k(lg, k, temperature, cold=True)),
)
TOPP_MUTANTS = (
    (
        "sampling-not-renormalised",
        lambda lg, p, temperature=1.0: top_p(lg, p, temperature, renorm=False),
    ),
    (
        "top-p-drops-the-crossing-token",
        lambda lg, p, temperature=1.0: top_p(lg, p, temperature, crossing=False),
    ),
    (
        "top-p-drops-the-crossing-token",
        lambda lg, p, temperature=1.0: top_p(lg, p, temperature, crossing="keep-top"),
    ),
    ("top-p-not-sorted", lambda lg, p, temperature=1.0: top_p(lg, p, temperature, unsorted=True)),
    (
        "temperature-multiplied",
        lambda lg, p, temperature=1.0: top_p(lg, p, temperature, multiply=True),
    ),
    ("temperature-ignored", lambda lg, p, temperature=1.0: top_p(lg, p, temperature, cold=True)),
    (
        "top-p-not-scattered-back",
        lambda lg, p, temperature=1.0: top_p(lg, p, temperature, scatter=False),
    ),
    (
        "temperature-after-the-cut",
        lambda lg, p, temperature=1.0: top_p(lg, p, temperature, late=True),
    ),
)


def _logits(g, *shape):
    """Distinct logits (no ties: where tied tokens are cut is left open by the contract)."""
    return randn(g, *shape) * 2


def check_top_k(sub) -> None:
    g = generator(67)
    cases = (
        (_logits(g, 2, 8), 3, {}),
        (_logits(g, 8), 1, {}),
        (_logits(g, 2, 3, 6), 2, {"temperature": 0.5}),
        (_logits(g, 1, 5), 5, {}),
        (_logits(g, 1, 5), 9, {"temperature": 2.0}),
    )
    for logits, k, kw in cases:
        c = Call("top_k_probs", logits, k, **kw)
        expect(
            run(c, sub, TOPK_MUTANTS),
            top_k(logits.double(), k, **kw),
            c,
            TOPK_MUTANTS,
            what=N_("the probabilities"),
            dtype=torch.float32,
        )


def _away_from_edges(g, p, shape, temperature=1.0):
    """Logits whose sorted cumulative probabilities stay clear of p (where variants differ)."""
    while True:
        logits = _logits(g, *shape)
        sp = (
            torch.softmax(logits.double() / temperature, -1)
            .sort(-1, descending=True)
            .values.cumsum(-1)
        )
        if bool(((sp - p).abs() > 0.02).all()):
            return logits


def check_top_p(sub) -> None:
    g = generator(71)
    cases = (
        ((2, 8), 0.6, {}),
        ((8,), 0.9, {}),
        ((2, 3, 6), 0.5, {"temperature": 0.7}),
        ((1, 5), 0.05, {}),
    )
    for shape, p, kw in cases:
        logits = _away_from_edges(g, p, shape, kw.get("temperature", 1.0))
        c = Call("top_p_probs", logits, p, **kw)
        expect(
            run(c, sub, TOPP_MUTANTS),
            top_p(logits.double(), p, **kw),
            c,
            TOPP_MUTANTS,
            what=N_("the probabilities"),
            dtype=torch.float32,
        )

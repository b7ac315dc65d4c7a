"""Tiled attention's known mistakes (``TILED_MUTANTS``), and its online softmax at the ends of
float32's range: scores far above 0, whose exponential overflows unless the running max is
subtracted, and scores far below 0, which underflow to a zero sum when the running max starts at
0 rather than -inf."""

from __future__ import annotations

from functools import partial

import torch

from autograder.i18n import _
from autograder.kit import sentences
from autograder.kit.calling import Call, fail
from autograder.kit.compare import diagnose, expect_close
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import INF, tiled_reference, tiled_reference_of
from autograder.kit.inputs import generator, randn


def online(
    q,
    k,
    v,
    block_size=64,
    causal=False,
    *,
    scale=None,
    rescale_acc=True,
    rescale_sum=True,
    normalise=True,
    drop_last=False,
    first_only=False,
    drop_last_queries=False,
    sum_no_keepdim=False,
    local=None,
    offset=0,
    strict=False,
    inverted=False,
    update_max=True,
    v_features=False,
    over_queries=None,
    sum_matrix=False,
    reverse=False,
    unguarded=False,
    causal_skip=None,
    max_block_only=False,
    max_first_block=False,
    max_before_mask=False,
    diagonal_unmasked=False,
):
    """FlashAttention's online softmax over key blocks (queries tiled too when ``local`` is
    "both" or ``diagonal_unmasked``), with knobs for the known mistakes."""
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    lq, lk = q.shape[-2], k.shape[-2]
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    q_tiled = local == "both" or diagonal_unmasked
    q_blocks = range(0, lq, block_size) if q_tiled else (0,)
    for qs in q_blocks:
        qe = min(qs + block_size, lq) if q_tiled else lq
        qb = q[..., qs:qe, :]
        m = torch.full((*qb.shape[:-1], 1), -INF, dtype=q.dtype)  # running max   (..., Tq, 1)
        s_sum = torch.zeros_like(m)  # running sum of exp                          (..., Tq, 1)
        if sum_matrix:  # l of shape (..., Tq): alpha * l broadcasts to (..., Tq, Tq)
            s_sum = s_sum.squeeze(-1)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=q.dtype)  # weighted v (..., Tq, V)
        stop = lk - lk % block_size if drop_last else lk
        stop = min(block_size, lk) if first_only else stop  # k[..., start:block_size, :]
        starts = range(0, stop, block_size)
        for ks in reversed(starts) if reverse else starts:
            ke = min(ks + block_size, lk)
            if causal and causal_skip is not None and causal_skip(ks, ke, lq, block_size):
                continue  # a key block skipped as if every query were before it
            s = qb @ k[..., ks:ke, :].transpose(-2, -1) * scale  # (..., Tq, Tk)
            unmasked = s
            if causal and not (diagonal_unmasked and ks <= qs):  # masked past the diagonal only
                i = torch.arange(qs, qe)[:, None] - (qs if local == "both" else 0)
                j = torch.arange(ks, ke)[None, :] - (ks if local else 0)
                s = s.masked_fill((j >= i + offset) if strict else (j > i + offset), -INF)
            m_new = torch.maximum(m, (unmasked if max_before_mask else s).amax(-1, keepdim=True))
            m_new = s.amax(-1, keepdim=True) if max_block_only else m_new
            m_new = m if max_first_block and ks > 0 else m_new  # the first block's max, kept
            safe = m_new if unguarded else torch.where(m_new.isneginf(), 0.0, m_new)
            p = (s - safe).exp()
            alpha = (m - safe).exp()  # rescales what was summed under the old max
            if inverted:  # exp(m_new - m): the correction upside down
                alpha = torch.where(m.isneginf(), 0.0, (safe - m).exp())
            row_sum = p.sum(-1, keepdim=not sum_matrix)
            if over_queries:  # l's block sum also summed or averaged over the queries (dim -2)
                row_sum = getattr(row_sum, over_queries)(-2, keepdim=True)
            s_sum = (alpha if rescale_sum else 1.0) * s_sum + row_sum
            acc = (alpha if rescale_acc else 1.0) * acc + p @ (
                v[..., ks:ke] if v_features else v[..., ks:ke, :]
            )
            m = m_new if update_max else m
        if sum_no_keepdim:  # l of shape (..., Lq): acc / l divides feature j by query j's sum
            s_sum = s_sum.squeeze(-1)
        out[..., qs:qe, :] = acc / s_sum**normalise if normalise else acc  # 2: divided twice
        if normalise and not (strict or unguarded or max_block_only or max_first_block):
            # NaN left where made; a fully masked row (bottom-right alignment) is zeros
            out[..., qs:qe, :] = out[..., qs:qe, :].nan_to_num(0.0)
    if drop_last_queries:  # query tiles range(0, Lq - block_size + 1, block_size): the last lost
        out[..., lq - lq % block_size :, :] = 0.0
    return out


def blocks_averaged(q, k, v, block_size=64, causal=False):
    """Each key block softmaxed on its own and the blocks' outputs averaged: no running max or
    sum shared between the blocks."""
    lq, lk = q.shape[-2], k.shape[-2]
    outs = []
    for ks in range(0, lk, block_size):
        ke = min(ks + block_size, lk)
        s = q @ k[..., ks:ke, :].transpose(-2, -1) * q.shape[-1] ** -0.5
        if causal:
            s = s.masked_fill(torch.arange(ks, ke)[None, :] > torch.arange(lq)[:, None], -INF)
        outs.append(s.softmax(-1).nan_to_num(0.0) @ v[..., ks:ke, :])
    return sum(outs) / len(outs)


def keys_of_first_block(q, k, v, block_size=64, causal=False):
    """Every block's keys sliced from 0 (k[..., 0:end - start, :]), its values from start: the
    first block's keys paired with each block's values."""
    lk = k.shape[-2]
    firsts = [k[..., : min(block_size, lk - s), :] for s in range(0, lk, block_size)]
    return online(q, torch.cat(firsts, -2), v, block_size, causal)


def normalised_without_old_sum(q, k, v, block_size=64, causal=False):
    """FlashAttention-1's update, the output kept normalised block by block, with the old sum
    left out: o = (exp(m - m') * o + P @ V_j) / l', not (exp(m - m') * l * o + P @ V_j) / l'."""
    lq, lk = q.shape[-2], k.shape[-2]
    m = torch.full((*q.shape[:-1], 1), -INF, dtype=q.dtype, device=q.device)
    total = torch.zeros_like(m)
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    for ks in range(0, lk, block_size):
        ke = min(ks + block_size, lk)
        s = q @ k[..., ks:ke, :].transpose(-2, -1) * q.shape[-1] ** -0.5
        if causal:
            s = s.masked_fill(torch.arange(ks, ke)[None, :] > torch.arange(lq)[:, None], -INF)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p, alpha = torch.exp(s - m_new), torch.exp(m - m_new)
        total_new = alpha * total + p.sum(-1, keepdim=True)
        out = (alpha * out + p @ v[..., ks:ke, :]) / total_new
        total, m = total_new, m_new
    return out.nan_to_num(0.0)


def max_block_only_guarded(q, k, v, block_size=64, causal=False):
    """The running max replaced by the block's own, with a zero-sum guard at the end."""
    return online(q, k, v, block_size, causal, max_block_only=True).nan_to_num(0.0)


def not_rescaled(out, c, failure) -> str:
    """A line naming the one running quantity tiled_attention did not rescale ('' if not so)."""
    if failure.mistake != "online-softmax-no-rescale":
        return ""
    accumulator = _("Only the accumulator is not rescaled by exp(m - m'): the running sum l is.")
    running_sum = _("Only the running sum l is not rescaled by exp(m - m'): the accumulator is.")
    averaged = _(
        "Each key block is softmaxed on its own and the blocks' outputs averaged: the blocks "
        "share one softmax, so carry the running max m and sum l from block to block."
    )
    mutants = (
        ("\n" + accumulator, partial(online, rescale_acc=False)),
        ("\n" + running_sum, partial(online, rescale_sum=False)),
        ("\n" + averaged, blocks_averaged),
    )
    return diagnose(out, c, mutants) or ""


def _online_mutant(**knobs):
    return lambda q, k, v, block_size=64, causal=False: online(q, k, v, block_size, causal, **knobs)


TILED_MUTANTS = (  # tiled_attention's known mistakes: the online softmax with a knob turned
    ("online-softmax-no-rescale", _online_mutant(rescale_acc=False)),
    ("online-softmax-no-rescale", _online_mutant(rescale_acc=False, rescale_sum=False)),
    ("online-softmax-no-rescale", _online_mutant(rescale_sum=False)),
    ("online-softmax-no-rescale", blocks_averaged),  # each block its own softmax, then averaged
    ("forgot-final-normalisation", _online_mutant(normalise=False)),
    *(  # before partial-block-dropped: with causal=True alone, the same outputs
        ("tiled-causal-skips-visible-block", _online_mutant(causal_skip=skip))
        for skip in (
            lambda start, end, lq, bs: start + bs > lq,  # if start + block_size > Lq: break
            lambda start, end, lq, bs: start >= lq - bs,  # a block too early
        )
    ),
    ("partial-block-dropped", _online_mutant(drop_last=True)),
    ("partial-block-dropped", _online_mutant(drop_last_queries=True)),
    ("tiled-keys-first-block-only", _online_mutant(first_only=True)),
    ("tiled-keys-first-block-only", keys_of_first_block),
    ("online-sum-no-keepdim", _online_mutant(sum_no_keepdim=True)),
    ("causal-block-offset", _online_mutant(local="keys")),
    ("causal-block-offset", _online_mutant(local="both")),
    ("tiled-causal-diagonal-unmasked", _online_mutant(diagonal_unmasked=True)),
    ("no-scaling", _online_mutant(scale=1.0)),
    ("scaled-by-dk", lambda q, k, v, *a, **kw: online(q, k, v, *a, scale=1 / q.shape[-1], **kw)),
    (
        "scaled-by-d-v",
        lambda q, k, v, *a, **kw: online(q, k, v, *a, scale=v.shape[-1] ** -0.5, **kw),
    ),
    (
        "tiled-causal-bottom-right",
        lambda q, k, v, block_size=64, causal=False: online(
            q, k, v, block_size, causal, offset=k.shape[-2] - q.shape[-2]
        ),
    ),
    ("tiled-causal-strict", _online_mutant(strict=True)),
    (
        "tiled-causal-ignored",
        lambda q, k, v, block_size=64, causal=False: online(q, k, v, block_size),
    ),
    ("tiled-causal-strict", lambda *a, **kw: _online_mutant(strict=True)(*a, **kw).nan_to_num(0.0)),
    ("online-max-not-updated", _online_mutant(update_max=False)),
    ("online-max-not-updated", _online_mutant(max_first_block=True)),
    ("online-max-before-mask", _online_mutant(max_before_mask=True)),
    ("online-max-before-mask", _online_mutant(max_before_mask=True, unguarded=True)),
    ("tiled-v-sliced-on-features", _online_mutant(v_features=True)),
    ("online-softmax-inverted-correction", _online_mutant(inverted=True)),
    ("weights-times-keys", lambda q, k, v, *a, **kw: online(q, k, k, *a, **kw)),
    ("online-normalised-twice", _online_mutant(normalise=2)),
    ("online-old-sum-dropped", normalised_without_old_sum),  # a Chinese learner trial
    ("online-sum-no-keepdim", _online_mutant(sum_matrix=True)),
    ("tiled-masked-block-nan", _online_mutant(reverse=True, unguarded=True)),
    ("online-max-block-only", _online_mutant(max_block_only=True)),
    ("online-max-block-only", max_block_only_guarded),
    *(("online-sum-over-queries", _online_mutant(over_queries=how)) for how in ("sum", "mean")),
)


SCORE = 200.0  # |q·k| / sqrt(d_k) for every key: exp(200) is inf in float32, exp(-200) is 0


def _large_scores_call(g, signs, d=4) -> Call:
    """Query i scores every key near signs[i] * SCORE: the keys lie along one direction, each
    query along it or against it."""
    u = randn(g, d)
    u = u / u.norm()
    r = (SCORE * d**0.5) ** 0.5  # q·k / sqrt(d) = r² / sqrt(d) = SCORE
    k = r * u + 0.3 * randn(g, 6, d)
    q = torch.stack([s * r * u for s in signs])
    return Call("tiled_attention", q, k, randn(g, 6, 3), block_size=2)


def _right(sub, c) -> bool:
    try:
        out = c.run(sub)
    except CheckFailure:
        return False
    want = tiled_reference(*c.args, 2)
    return isinstance(out, torch.Tensor) and out.shape == want.shape and _close(out, want)


def _close(out, want) -> bool:
    return torch.allclose(out.double(), want, atol=1e-4, rtol=1e-4)


def expect_large_scores(sub, g) -> None:
    """Query 0 scores every key near +SCORE, query 1 near -SCORE: SDPA is exact for both. Named
    by which query is wrong, and by that query alone and at d_k = 1 (where scaling is 1)."""
    c = _large_scores_call(g, (1.0, -1.0))
    out = c.run(sub)
    want = tiled_reference(q := c.args[0], c.args[1], c.args[2], 2)
    if isinstance(out, torch.Tensor) and out.shape == want.shape:
        wrong = [i for i in (0, 1) if not _close(out[i], want[i])]
        if wrong:
            i, sign = wrong[0], "+-"[wrong[0]]
            facts = dict(call=c, score=SCORE, shown=_shown(out[i]), i=i, sign=sign)
            if _right(sub, _large_scores_call(generator(i), (1.0 - 2 * i,))):
                mistake = "online-max-over-queries"
                raise fail(_(sentences.TILED_MAX_OVER_QUERIES).format(**facts), mistake)
            if _right(sub, _large_scores_call(generator(i), (1.0, -1.0), d=1)):
                mistake = "online-max-before-scaling"
                raise fail(_(sentences.TILED_MAX_BEFORE_SCALING).format(**facts), mistake)
            if i == 0:
                raise fail(
                    _(
                        "{call}: query 0 scores every key near +{score:.0f}, and its output is "
                        "{shown}: exp({score:.0f}) overflows in float32; subtract the running max "
                        "before exponentiating."
                    ).format(**facts),
                    "online-softmax-no-max",
                )
            raise fail(
                _(
                    "{call}: query 1 scores every key near -{score:.0f}, and its output is "
                    "{shown}: exp(-{score:.0f}) is 0 in float32, so a running max that starts at "
                    "0 sums nothing; start it at -inf."
                ).format(**facts),
                "online-max-starts-at-zero",
            )
    expect_close(out, want, c, dtype=q.dtype)


RISING = 800.0  # a score whose exp overflows in float64 too (past about 709): so do the mutants'


def _block_maxima_calls(g) -> tuple[Call, Call]:
    """Two calls where a running max kept wrong shows whatever the float width: a query whose first
    key block scores 0 and whose later blocks score +RISING (a max kept from the first block
    overflows); and, causal, keys that alternate between 0 and +RISING, so that query 0 sees one
    key scoring 0 beside a future key, in its block, scoring +RISING (a max taken before the mask
    makes its one visible key's weight exp(-RISING) = 0). Equal keys score equally: no rounding."""
    d = 4
    u = randn(g, d)
    top = (RISING * d**0.5) ** 0.5 * u / u.norm()  # q·k / sqrt(d) = RISING for q = k = top
    zero = torch.zeros(d)
    rising = Call(
        "tiled_attention",
        top[None],
        torch.stack([zero, zero, top, top, top, top]),
        randn(g, 6, 3),
        block_size=2,
    )
    alternating = torch.stack([zero, top] * 2)
    masked = Call(
        "tiled_attention",
        torch.stack([top] * 4),
        alternating,
        randn(g, 4, 3),
        block_size=2,
        causal=True,
    )
    return rising, masked


def expect_block_maxima(sub, g) -> None:
    """The running max grows with each block, and only visible keys raise it."""
    for c in _block_maxima_calls(g):
        out = c.run(sub, mutants=TILED_MUTANTS)
        expect_close(out, tiled_reference_of(c), c, dtype=torch.float32, mutants=TILED_MUTANTS)


def _shown(row: torch.Tensor) -> str:
    return "NaN" if bool(row.isnan().any()) else _("wrong")

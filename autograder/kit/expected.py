"""The expected values of every check, in float64, as the contract defines them: one place.

Each is written the plainest way (no course_lib: the reference is off limits to the judge too)
and takes knobs that reproduce known mistakes, so that one function gives both the expected value
and its mutants (``autograder.kit.mutants``, the lessons' ``*_MUTANTS``).
``tests/test_grader_checks.py`` proves each equal to torch's built-in and to course_lib's
reference. A lesson imports them from here: ``from autograder.kit.expected import tril``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from autograder.kit.modules import linear

INF = float("inf")


def ref_softmax(x, dim=-1):
    """Softmax in float64 where rows of all -inf give zeros."""
    return _shifted_softmax(x, dim, torch.isneginf)


def _shifted_softmax(x, dim, unshifted):
    """Softmax in float64 shifted by each row's max, except by 0 where ``unshifted(max)``; a row
    whose exponentials sum to 0 gives zeros."""
    x = x.double()
    m = x.amax(dim, keepdim=True)
    e = torch.exp(x - torch.where(unshifted(m), torch.zeros_like(m), m))
    s = e.sum(dim, keepdim=True)
    return torch.where(s == 0, torch.zeros_like(e), e / torch.where(s == 0, 1.0, s))


def scores(q, k):
    return q @ k.transpose(-2, -1)  # (..., Lq, K) @ (..., K, Lk) -> (..., Lq, Lk)


def attend(
    q,
    k,
    v,
    mask=None,
    *,
    scale=None,
    dim=-1,
    mode="ok",
    nan_rows=False,
    unstable=False,
    scores=None,
    output_nan_to_num=False,
    finite_max=False,
):
    """Attention as the contract says (mode "ok"), or as a known mistake does.

    ``mask`` is bool (True = may attend) or float (added to the scores, as SDPA's float
    ``attn_mask``). ``mode``: how the mask is used — "ok", "inverted", "after-softmax",
    "weights-before", "ignored", "zero" (scores * mask), "finite" (-1e9 fill) or "added" (a bool
    mask made 0/1 and added to the scores); for a float mask, "as-bool" / "as-bool-eq0" /
    "as-bool-finite" / "as-bool-ge0" (made a bool mask: != 0, == 0, finite, >= 0),
    "as-bool-where" / "as-bool-not" / "as-bool-fill" (bool-only code that raises on a float
    mask) or "minus" (subtracted); the bool-only modes apply a float mask correctly. ``nan_rows``:
    a softmax that gives NaN for fully masked rows; ``unstable``: a softmax without the max
    subtracted, whose exp overflows float32 to inf (and inf / inf is NaN) once a score passes
    88.7; ``dim``: the softmax's dim; ``output_nan_to_num``: the output's NaN replaced by 0;
    ``finite_max``: a softmax that shifts by the max only where it is finite, as learners guard
    rows of all -inf (a +inf score then gives NaN at its own place alone).
    """
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    s = (q @ k.transpose(-2, -1) if scores is None else scores(q, k)) * scale
    if mask is not None and mask.dtype != torch.bool and mode != "ignored":
        s, mask, mode = _additive(s, mask, mode)
    if mask is not None and mode == "added":  # scores + mask.float(): +1 allowed, 0 blocked
        s, mode = s + mask.to(s.dtype), "ignored"
    unmasked = _softmax(s, dim, nan_rows, unstable, finite_max)
    if mask is None or mode == "ignored":
        return unmasked @ v, unmasked
    if mode == "after-softmax":
        w = unmasked.masked_fill(~mask, 0.0)
        return w @ v, w
    fill = {"zero": 0.0, "finite": -1e9}.get(mode, -INF)
    w = _softmax(
        s.masked_fill(mask if mode == "inverted" else ~mask, fill),
        dim,
        nan_rows,
        unstable,
        finite_max,
    )
    out = (w @ v).nan_to_num(0.0) if output_nan_to_num else w @ v
    return out, unmasked if mode == "weights-before" else w


def _additive(s, mask, mode):
    """Apply a float mask as ``mode`` says; returns ``(scores, bool mask or None, mode)``."""
    if mode == "as-bool":  # mask.bool() or mask != 0: True wherever the entry is non-zero
        return s, mask != 0, "ok"
    if mode == "as-bool-eq0":  # mask == 0: right for 0/-inf masks, wrong for any other bias
        return s, mask == 0, "ok"
    if mode == "as-bool-finite":  # mask.isfinite(): the -inf entries block, the biases are lost
        return s, mask.isfinite(), "ok"
    if mode == "as-bool-ge0":  # masked_fill(mask < 0, -inf): negative biases block, others lost
        return s, mask >= 0, "ok"
    if mode == "as-bool-where":
        torch.where(mask, s, -INF)  # raises on a float condition, as the learner's code did
    if mode == "as-bool-not":
        ~mask  # noqa: B018 - raises for a float tensor, as the learner's code did
    if mode == "as-bool-fill":
        s.masked_fill(mask, -INF)  # raises on a float mask, as the learner's code did
    bias = mask.to(s.dtype)
    return (s - bias if mode == "minus" else s + bias), None, "ok"


def _softmax(s, dim, nan_rows, unstable=False, finite_max=False):
    if finite_max:  # +inf scores: NaN at their own places alone
        return _shifted_softmax(s, dim, lambda m: ~m.isfinite())
    if unstable:  # exp(s) without subtracting the max, overflowing as float32 does
        e = s.float().exp().to(s.dtype)
        total = e.sum(dim, keepdim=True)
        return torch.where(total == 0, torch.zeros_like(e), e / torch.where(total == 0, 1.0, total))
    if nan_rows:
        e = (s - s.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
    return ref_softmax(s, dim)


def knobs_for(q, knobs):
    """:func:`attend`'s knobs, with ``scale_power`` turned into the scale for q's d_k."""
    knobs = dict(knobs)
    if "scale_power" in knobs:
        knobs["scale"] = q.shape[-1] ** knobs.pop("scale_power")
    return knobs


# ---- multi-head: B batch, H heads, L positions, E head dim, D = H·E model dim --------------------


def split(x, h, how="ok"):
    b, n, d = x.shape
    if how == "no-transpose":
        return x.reshape(b, h, n, d // h)
    if how == "wrong-order":
        return x.reshape(b, n, d // h, h).permute(0, 3, 1, 2)
    if how == "reversed":  # head i gets head h-1-i's features
        return x.reshape(b, n, h, d // h).transpose(1, 2).flip(1)
    return x.reshape(b, n, h, d // h).transpose(1, 2)  # (B, L, H, E) -> (B, H, L, E)


def merge(x, how="ok"):
    b, h, n, e = x.shape
    if how == "no-transpose":
        return x.reshape(b, n, h * e)
    if how == "wrong-order":
        return x.permute(0, 2, 3, 1).reshape(b, n, h * e)
    if how == "reversed":  # the heads concatenated last to first
        return x.flip(1).transpose(1, 2).reshape(b, n, h * e)
    return x.transpose(1, 2).reshape(b, n, h * e)  # (B, H, L, E) -> (B, L, H, E) -> (B, L, D)


def mha(state, h, query, key=None, value=None, mask=None, knobs=None):
    """The contract's multi-head attention in float64, or a known mistake of it (``knobs``)."""
    knobs = dict(knobs or {})
    how_split, how_merge = knobs.pop("split", "ok"), knobs.pop("merge", "ok")
    query = query.double()
    if knobs.pop("ignore_kv", False) or key is None:
        key = value = query  # self-attention
    if value is None:  # value defaults to key (to query: a known mistake)
        value = query if knobs.pop("value_query", False) else key
    knobs.pop("value_query", None)
    unsqueeze = knobs.pop("unsqueeze_mask", None)  # 1 always; 2 on 3-D masks only
    if mask is not None and (unsqueeze == 1 or (unsqueeze == 2 and mask.dim() == 3)):
        mask = mask.unsqueeze(unsqueeze)
    key, value = key.double(), value.double()
    wo_on_values = knobs.pop("wo_on_values", False)  # w_o applied to v, before attention
    if wo_on_values:
        value = linear(linear(value, state, "w_v"), state, "w_o")
    q, k, v = (
        split(t if n == "v" and wo_on_values else linear(t, state, f"w_{n}"), h, how_split)
        for t, n in zip((query, key, value), "qkv", strict=True)
    )  # (B, L, D) -> (B, H, L, E)
    if (kv := knobs.pop("kv_query_length", None)) is not None:  # k, v viewed with Lq: ("h", -1)
        shape = (*query.shape[:2], *({"h": h, "e": query.shape[-1] // h}.get(s, s) for s in kv))
        k = linear(key, state, "w_k").reshape(shape).transpose(1, 2)
        v = linear(value, state, "w_v").reshape(shape).transpose(1, 2)
    if knobs.pop("d_model_scale", False):
        knobs["scale"] = query.shape[-1] ** -0.5
    if knobs.pop("values_are_keys", False):  # weights @ k
        v = k
    average = knobs.pop("average", False)
    skip_wo = knobs.pop("skip_wo", False)
    o, w = attend(q, k, v, mask, **knobs_for(q, knobs))  # (B, H, Lq, E), (B, H, Lq, Lk)
    o = merge(o, how_merge)
    skip_wo = skip_wo or wo_on_values
    return (o if skip_wo else linear(o, state, "w_o")), (w.mean(1) if average else w)


# ---- 03_scaling: scaled scores, entropy --------------------------------------------------------


def scaled_scores(q, k):
    return scores(q, k) / math.sqrt(q.shape[-1])


def entropy(p, dim=-1, log=torch.log):
    return -torch.where(p > 0, p * log(torch.where(p > 0, p, 1.0)), 0.0).sum(dim)


# ---- 04_softmax_masks: masks -------------------------------------------------------------------


def tril(n, diagonal=0):
    return torch.ones(n, n, dtype=torch.bool).tril(diagonal)


def triu(n, diagonal=0):
    return torch.ones(n, n, dtype=torch.bool).triu(diagonal)


def padding(lengths, max_len):
    return torch.arange(max_len) < lengths[:, None]  # (1, max_len) vs (B, 1) -> (B, max_len)


def masked(scores, mask, fill=-INF):
    return scores.masked_fill(~mask, fill)


# ---- 05_attention: single-head attention -------------------------------------------------------


def ref_attention64(q, k, v, mask=None):
    return attend(q.double(), k.double(), v.double(), mask)


def self_attention(state, x, mask=None, knobs=None):
    x = x.double()
    q, k, v = (linear(x, state, f"w_{n}") for n in "qkv")
    knobs = dict(knobs or {})
    if knobs.pop("d_model_scale", False):
        knobs["scale"] = x.shape[-1] ** -0.5
    return attend(q, k, v, mask, **knobs_for(q, knobs))


# ---- 06_multihead: parameter count -------------------------------------------------------------


def num_parameters(d, h, bias=False, *, projections=4, with_bias=True, per_head=False):
    n = projections * (d * d + (d if bias and with_bias else 0))
    return n * h if per_head else n


# ---- 07_positions: positions -------------------------------------------------------------------


def frequencies(d, base=10000.0, exponent=2.0):
    """base^(-2i/d) for pair i (``exponent`` 1 or 4: the i-instead-of-2i mistakes)."""
    i = torch.arange(d // 2, dtype=torch.float64)
    return base ** (-exponent * i / d)  # (I,)


def sinusoid(max_len, d, *, how="ok", exponent=2.0):
    angle = torch.arange(max_len, dtype=torch.float64)[:, None] * frequencies(d, exponent=exponent)
    sin, cos = angle.sin(), angle.cos()  # (P, I)
    if how == "swapped":
        sin, cos = cos, sin
    if how == "halves":
        return torch.cat([sin, cos], -1)  # (P, D)
    return torch.stack([sin, cos], -1).reshape(max_len, d)  # (P, I, 2) -> (P, D) interleaved


def rope(x, positions=None, base=10000.0, *, how="ok", exponent=2.0, sign=1.0, angles_in=None):
    """Rotate interleaved pairs (x[..., 2i], x[..., 2i+1]) by p · base^(-2i/d), in float64;
    ``angles_in`` (float16, bfloat16): p and the frequencies multiplied in that dtype."""
    x = x.double()
    n, d = x.shape[-2], x.shape[-1]
    p = torch.arange(n) if positions is None or how == "ignore-positions" else positions
    wide = angles_in or torch.float64
    angle = (p.to(wide)[:, None] * frequencies(d, base, exponent).to(wide)).double() * sign
    cos, sin = angle.cos(), angle.sin()
    if how == "halves":  # GPT-NeoX: pairs (x[..., i], x[..., i + d/2])
        a, b = x[..., : d // 2], x[..., d // 2 :]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)
    a, b = x[..., 0::2], x[..., 1::2]  # (..., P, I) each
    if how == "concat-output":  # the rotated pairs written as two halves, not interleaved
        return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)
    return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)  # (..., P, D)


# ---- 08_blocks: the Transformer block ----------------------------------------------------------


ACTIVATIONS = {
    "relu": F.relu,
    "none": lambda t: t,
    "gelu": F.gelu,
    "gelu-tanh": lambda t: F.gelu(t, approximate="tanh"),
    "silu": F.silu,
    "tanh": torch.tanh,
    "leaky-relu": F.leaky_relu,
    "leaky-relu-0.1": lambda t: F.leaky_relu(t, 0.1),  # other common slopes (trial 49)
    "leaky-relu-0.2": lambda t: F.leaky_relu(t, 0.2),
    "relu6": F.relu6,
}


def feed_forward(state, x, prefix="", act="relu", *, act_after=False):
    """The FFN in float64; ``act_after`` also applies the activation to linear2's output."""
    h = ACTIVATIONS[act](linear(x.double(), state, prefix + "linear1"))  # (..., D) -> (..., F)
    out = linear(h, state, prefix + "linear2")  # (..., F) -> (..., D)
    return ACTIVATIONS[act](out) if act_after else out


def block(state, h, x, mask=None, norm_first=True, knobs=()):
    """The contract's block in float64; ``knobs`` switch on known mistakes."""
    knobs = set(knobs)
    if "mask-inverted" in knobs and mask is not None and mask.dtype != torch.bool:
        raise ValueError("a mistake of bool masks")  # ~ of a float mask raises torch's TypeError
    x = x.double()
    attn_state = {k.removeprefix("attn."): v for k, v in state.items() if k.startswith("attn.")}
    norms = ("norm1", "norm1") if "norm1-twice" in knobs else ("norm1", "norm2")
    norms = ("norm2", "norm2") if "norm2-twice" in knobs else norms
    norms = ("norm2", "norm1") if "norms-swapped" in knobs else norms

    def ln(t, n):
        w, b = state[f"{n}.weight"].to(t.dtype), state[f"{n}.bias"].to(t.dtype)
        if "norm-over-tokens" in knobs:  # mean and variance over the positions (dim -2)
            mu, var = t.mean(-2, keepdim=True), t.var(-2, unbiased=False, keepdim=True)
            return (t - mu) / (var + 1e-5).sqrt() * w + b
        eps = next((float(k[4:]) for k in knobs if k.startswith("eps=")), 1e-5)  # "eps=1e-3"
        return F.layer_norm(t, t.shape[-1:], w, b, eps=eps)

    def attn(t, kv=None):  # kv: the keys' and values' input, when it is not t
        m = None if "mask-ignored" in knobs else (~mask if "mask-inverted" in knobs else mask)
        if m is None and "default-causal" in knobs:  # no mask taken for a causal one
            m = torch.ones(t.shape[-2], t.shape[-2], dtype=torch.bool).tril()
        return mha(attn_state, h, t, kv, kv, mask=m)[0]

    def ff(t):
        return feed_forward(state, t, "ff.", "none" if "no-activation" in knobs else "relu")

    # the residual dropped, or added twice (x + (x + attn(...)))
    keep1 = 0.0 if "no-residual-1" in knobs else 2.0 if "residual-twice-1" in knobs else 1.0
    keep2 = 0.0 if "no-residual-2" in knobs else 2.0 if "residual-twice-2" in knobs else 1.0
    if "one-residual" in knobs:  # one residual around both sublayers: x + ff(attn(x))
        if norm_first:
            return x + ff(ln(attn(ln(x, norms[0])), norms[1]))
        return ln(x + ff(ln(attn(x), norms[0])), norms[1])
    if "residual-normed" in knobs:  # x = norm1(x); x = x + attn(x): Pre-LN or Post-LN asked
        x = ln(x, norms[0])
        x = x + attn(x)
        x = ln(x, norms[1])
        return x + ff(x)
    if norm_first != ("swapped" in knobs):  # Pre-LN
        if "residual-normed-1" in knobs:  # x = norm1(x); x + attn(x): the first residual normed
            x = ln(x, norms[0])
            x = x + attn(x)
            return x + ff(ln(x, norms[1]))
        if "residual-normed-2" in knobs:  # x = norm2(x); x + ff(x): the second residual normed
            x = x + attn(ln(x, norms[0]))
            x = ln(x, norms[1])
            return x + ff(x)
        if "ffn-block-input" in knobs:  # ff given the block's input x, not x + attn(...)
            return x + attn(ln(x, norms[0])) + ff(ln(x, norms[1]))
        if "norm2-on-attn" in knobs:  # x + norm2(attn(norm1(x))): norm2 on the sublayer output
            x = x + ln(attn(ln(x, norms[0])), norms[1])
            return x + ff(ln(x, norms[1]))
        x = keep1 * x + attn(ln(x, norms[0]), x if "kv-unnormed" in knobs else None)
        x = keep2 * x + ff(ln(x, norms[1]))
        return ln(x, norms[1]) if "output-normed" in knobs else x
    if "norm-inside-residual" in knobs:  # x + norm(sublayer(x)): the sum never normalised
        x = x + ln(attn(x), norms[0])
        return x + ln(ff(x), norms[1])
    if "ffn-block-input" in knobs:
        h = ln(x + attn(x), norms[0])
        return ln(h + ff(x), norms[1])
    if "post-ln-ffn-unnormed" in knobs:  # h = x + attn(x); norm2(norm1(h) + ff(h))
        h = x + attn(x)
        return ln(ln(h, norms[0]) + ff(h), norms[1])
    if knobs & {"norm-then-add", "norm-then-add-1", "norm-then-add-2"}:  # norm(x) + sublayer(x)
        first = knobs & {"norm-then-add", "norm-then-add-1"}  # in one sublayer or both
        x = ln(x, norms[0]) + attn(x) if first else ln(x + attn(x), norms[0])
        second = knobs & {"norm-then-add", "norm-then-add-2"}
        return ln(x, norms[1]) + ff(x) if second else ln(x + ff(x), norms[1])
    x = ln(keep1 * x + attn(ln(x, norms[0]) if "post-ln-normed-1" in knobs else x), norms[0])
    return ln(keep2 * x + ff(ln(x, norms[1]) if "post-ln-normed-2" in knobs else x), norms[1])


# ---- 09_efficient: efficient attention ---------------------------------------------------------


def window_mask(n, window, *, lo=0, width=None, both_ways=False):
    i = torch.arange(n)[:, None]  # queries (L, 1)
    j = torch.arange(n)[None, :]  # keys    (1, L)
    offset = (i - j).abs() if both_ways else i - j  # (L, L)
    return (offset >= lo) & (offset < (window if width is None else width))


def causal(lq, lk):
    return torch.ones(lq, lk, dtype=torch.bool).tril()


def tiled_reference(q, k, v, block_size=64, causal_=False):
    mask = causal(q.shape[-2], k.shape[-2]) if causal_ else None
    return attend(q.double(), k.double(), v.double(), mask)[0]


def tiled_reference_of(c):
    """What the ``tiled_attention`` Call ``c`` must return (the contract's defaults)."""
    return tiled_reference(*c.args, c.kwargs.get("block_size", 64), c.kwargs.get("causal", False))

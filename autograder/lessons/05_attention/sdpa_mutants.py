"""Lesson 05: the known mistakes of ``scaled_dot_product_attention`` as mutants (wrong versions
of the reference), which name a wrong output when they give the same."""

from __future__ import annotations

import torch

from autograder.kit import (
    ADDITIVE_MODES,
    INF,
    MASK_MODES,
    additive,
    attend,
    attention_mutants,
    knobs_for,
    ref_softmax,
    scale_mutants,
    transpose_mutants,
)
from autograder.kit.expected import ref_attention64, self_attention


def _sdpa_variant(q, k, v, mask=None, *, knobs):
    return attend(q, k, v, mask, **knobs_for(q, knobs))


SDPA_IDS = {
    "no-scaling",
    "scaled-by-dk",
    "multiplied-by-sqrt-dk",
    "softmax-wrong-dim",
    "fully-masked-nan",
    "softmax-unstable",
    *MASK_MODES,
    *(mistake for mistake, _mode in ADDITIVE_MODES),
}
SDPA_MUTANTS = (
    *(
        (m, lambda q, k, v, mask=None, fn=fn: _attn_from_scores(fn(q, k), v, mask))
        for m, fn in transpose_mutants(scale=lambda q: q.shape[-1] ** -0.5)
    ),
    *(
        (m, lambda q, k, v, mask=None, fn=fn: _attn_from_scores(fn(q, k), v, mask))
        for m, fn in scale_mutants(lambda q, k, scale: q @ k.transpose(-2, -1) * scale)
        if m == "scale-uses-seq-len"
    ),
    *attention_mutants(_sdpa_variant, SDPA_IDS),
    (
        "scaled-by-d-v",
        lambda q, k, v, mask=None: _attn_from_scores(
            q @ k.transpose(-2, -1) * v.shape[-1] ** -0.5, v, mask
        ),
    ),
    *(
        (
            "scale-rounded-sqrt",
            lambda q, k, v, mask=None, r=r: _attn_from_scores(
                q @ k.transpose(-2, -1) / r(q.shape[-1] ** 0.5), v, mask
            ),
        )
        for r in (int, round)  # math.isqrt(d_k) is int(sqrt(d_k))
    ),
    ("output-weights-swapped", lambda *a, **kw: ref_attention64(*a, **kw)[::-1]),
    ("weights-times-keys", lambda q, k, v, mask=None: ref_attention64(q, k, k, mask)),
    (
        "values-transposed",
        lambda q, k, v, mask=None: _values_transposed(ref_attention64(q, k, v, mask)[1], v),
    ),
    ("finite-fill-value", lambda q, k, v, mask=None: _clamped(q, k, v, mask)),
    ("weights-before-masking", lambda q, k, v, mask=None: _output_unmasked(q, k, v, mask)),
    ("mask-transposed", lambda q, k, v, mask=None: ref_attention64(q, k, v, transposed(mask))),
    ("mask-default-causal", lambda q, k, v, mask=None: _causal_if_none(q, k, v, mask)),
    (
        "mask-added-before-scaling",
        lambda q, k, v, mask=None: attend(q, k, v, scores=added_before_scaling(mask)),
    ),
    ("scaled-after-softmax", lambda q, k, v, mask=None: _scaled_after_softmax(q, k, v, mask)),
    ("output-shaped-like-q", lambda q, k, v, mask=None: _shaped_like_q(q, k, v, mask)),
    *(
        (
            "mask-reshaped-in-sdpa",
            lambda q, k, v, mask=None, d=d, n=n: _unsqueezed(q, k, v, mask, d, n),
        )
        for d in (1, 0)
        for n in (3, None)
    ),
    ("scores-returned-as-weights", lambda q, k, v, mask=None: _scores_as_weights(q, k, v, mask)),
)


def _causal_if_none(q, k, v, mask):
    """``mask=None`` taken as causal, torch.ones(Lq, Lk).tril() (also when Lq != Lk): only a
    call without a mask differs."""
    if mask is not None:
        raise ValueError("a mistake of calls without a mask")
    return ref_attention64(q, k, v, torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril())


def _scaled_after_softmax(q, k, v, mask):
    """The weights of the unscaled scores, then multiplied by the scale: rows no longer sum to 1."""
    out, w = attend(q, k, v, mask, scale=1.0)
    w = w * q.shape[-1] ** -0.5
    return w @ v.to(w.dtype), w


def _shaped_like_q(q, k, v, mask):
    """``(weights @ v).view(q.shape)``: the output's last dim is d_v, not d_k (an error unless
    they are equal)."""
    out, w = ref_attention64(q, k, v, mask)
    return out.view(q.shape), w


def _unsqueezed(q, k, v, mask, dim, ndim):
    """The mask unsqueezed at ``dim`` (when it has ``ndim`` dims; always when None) "to make room
    for the heads": a mask with a batch dim then broadcasts into another axis."""
    if mask is None or (ndim is not None and mask.dim() != ndim):
        raise ValueError("a mistake of masks with a batch dim")
    return ref_attention64(q, k, v, mask.unsqueeze(dim))


def _output_unmasked(q, k, v, mask):
    """The output computed from the weights before masking; the weights returned masked."""
    if mask is None:
        raise ValueError("a mistake of masks")
    return ref_attention64(q, k, v)[0], ref_attention64(q, k, v, mask)[1]


def transposed(mask):
    """The mask read as (keys, queries): mask.transpose(-2, -1)."""
    if mask is None:
        raise ValueError("a mistake of masks")
    return mask.transpose(-2, -1)


def added_before_scaling(mask):
    """:func:`attend`'s ``scores``: a float mask added to q @ k^T before the scale, which then
    divides its biases too."""
    if mask is None or mask.dtype == torch.bool:
        raise ValueError("a mistake of float masks only")
    return lambda q, k: q @ k.transpose(-2, -1) + mask.to(q.dtype)


def _clamped(q, k, v, mask):
    """The mask made a finite additive one: see :func:`finite_additive`."""
    return ref_attention64(q, k, v, finite_additive(mask))


def finite_additive(mask):
    """An additive mask clamped to a finite value ("to avoid nan"), or a bool mask made a finite
    additive one (BERT's ``(1.0 - mask) * -10000.0``): a query whose keys are all blocked
    attends to every key (evenly, or by its scores) instead of to none."""
    if mask is None:
        raise ValueError("a mistake of masks")
    return (additive(mask) if mask.dtype == torch.bool else mask).clamp(min=-1e4)


def _values_transposed(weights, v):
    """``weights @ v.transpose(-2, -1)``: a shape error unless Lk == d_v."""
    return weights @ v.to(weights.dtype).transpose(-2, -1), weights


def _uncast_mask(q, k, v, mask=None):
    """A float32 mask added to half-precision scores without a cast: the scores, the weights
    and then ``weights @ v`` are promoted (which raises for half values)."""
    if mask is None or mask.dtype == torch.bool:
        raise ValueError("a mistake of float masks only")
    w = ref_softmax((q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5 + mask).to(mask.dtype)
    return w @ v, w


FLOAT_MASK_MUTANTS = SDPA_MUTANTS + (("dtype-promoted", _uncast_mask),)


def _scores_as_weights(q, k, v, mask):
    """The right output, and the (masked) scores before the softmax in place of the weights."""
    s = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
    if mask is not None and mask.dtype != torch.bool:
        s = s + mask.to(s.dtype)
    elif mask is not None:
        s = s.masked_fill(~mask, -INF)
    return ref_softmax(s) @ v, s


def _attn_from_scores(s, v, mask):
    if mask is not None and mask.dtype != torch.bool:
        s = s + mask.to(s.dtype)
    elif mask is not None:
        s = s.masked_fill(~mask, -INF)
    w = ref_softmax(s)
    return w @ v, w


def self_attention_extra_mutants(state):
    """SelfAttention's mistakes of how x reaches the projections: every token of the batch
    flattened into one sequence, or x @ W with nn.Linear's (out, in) weight not transposed."""

    def flattened(x, mask=None):
        if x.dim() < 3:
            raise ValueError("a mistake of batched inputs")
        out, w = self_attention(state, x.reshape(-1, x.shape[-1]), mask)
        return out.reshape(*x.shape[:-1], -1), w

    def untransposed(x, mask=None, names="qkv"):  # x @ W for the projections in names
        q, k, v = (
            x.double() @ (w.double() if n in names else w.double().T)
            + state.get(f"w_{n}.bias", torch.zeros(())).double()
            for n in "qkv"
            for w in (state[f"w_{n}.weight"],)
        )
        return attend(q, k, v, mask)

    return (
        ("finite-fill-value", lambda x, mask=None: self_attention(state, x, finite_additive(mask))),
        ("batch-flattened", flattened),
        *(
            ("weight-untransposed", lambda x, mask=None, names=names: untransposed(x, mask, names))
            for names in ("qkv", "q", "k", "v")
        ),
    )

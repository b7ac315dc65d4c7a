"""Expected values that several lessons share, in float64, as the contract defines them.

Each is written the plainest way (no course_lib: the reference is off limits to the judge too) and
takes ``knobs`` that reproduce a known mistake, so that one function gives both the expected value
and its mutants (``autograder.kit.mutants``). ``tests/test_grader_checks.py`` proves each equal to
torch's built-in and to course_lib's reference.
"""

from __future__ import annotations

import torch

from autograder.kit.modules import linear

INF = float("inf")


def ref_softmax(x, dim=-1):
    """Softmax in float64 where rows of all -inf give zeros."""
    x = x.double()
    m = x.amax(dim, keepdim=True)
    e = torch.exp(x - torch.where(m.isneginf(), torch.zeros_like(m), m))
    s = e.sum(dim, keepdim=True)
    return torch.where(s == 0, torch.zeros_like(e), e / torch.where(s == 0, 1.0, s))


def scores(q, k):
    return q @ k.transpose(-2, -1)  # (..., Lq, K) @ (..., K, Lk) -> (..., Lq, Lk)


def attend(q, k, v, mask=None, *, scale=None, dim=-1, mode="ok", nan_rows=False, scores=None):
    """Attention as the contract says (mode "ok"), or as a known mistake does.

    ``mode``: how the mask is used — "ok", "inverted", "after-softmax", "weights-before",
    "ignored", "zero" (scores * mask) or "finite" (-1e9 fill); ``nan_rows``: a softmax that gives
    NaN for fully masked rows; ``dim``: the dim the softmax normalises over.
    """
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    s = (q @ k.transpose(-2, -1) if scores is None else scores(q, k)) * scale
    unmasked = _softmax(s, dim, nan_rows)
    if mask is None or mode == "ignored":
        return unmasked @ v, unmasked
    if mode == "after-softmax":
        w = unmasked.masked_fill(~mask, 0.0)
        return w @ v, w
    fill = {"zero": 0.0, "finite": -1e9}.get(mode, -INF)
    w = _softmax(s.masked_fill(mask if mode == "inverted" else ~mask, fill), dim, nan_rows)
    return w @ v, unmasked if mode == "weights-before" else w


def _softmax(s, dim, nan_rows):
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
    return x.reshape(b, n, h, d // h).transpose(1, 2)  # (B, L, H, E) -> (B, H, L, E)


def merge(x, how="ok"):
    b, h, n, e = x.shape
    if how == "no-transpose":
        return x.reshape(b, n, h * e)
    if how == "wrong-order":
        return x.permute(0, 2, 3, 1).reshape(b, n, h * e)
    return x.transpose(1, 2).reshape(b, n, h * e)  # (B, H, L, E) -> (B, L, H, E) -> (B, L, D)


def mha(state, h, query, key=None, value=None, mask=None, knobs=None):
    """The contract's multi-head attention in float64, or a known mistake of it (``knobs``)."""
    knobs = dict(knobs or {})
    how_split, how_merge = knobs.pop("split", "ok"), knobs.pop("merge", "ok")
    query = query.double()
    if knobs.pop("ignore_kv", False) or key is None:
        key = value = query  # self-attention
    key, value = key.double(), value.double()
    q, k, v = (
        split(linear(t, state, f"w_{n}"), h, how_split)  # (B, L, D) -> (B, H, L, E)
        for t, n in zip((query, key, value), "qkv", strict=True)
    )
    if knobs.pop("d_model_scale", False):
        knobs["scale"] = query.shape[-1] ** -0.5
    average = knobs.pop("average", False)
    skip_wo = knobs.pop("skip_wo", False)
    o, w = attend(q, k, v, mask, **knobs_for(q, knobs))  # (B, H, Lq, E), (B, H, Lq, Lk)
    o = merge(o, how_merge)
    return (o if skip_wo else linear(o, state, "w_o")), (w.mean(1) if average else w)

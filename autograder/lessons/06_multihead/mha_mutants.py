"""Lesson 06: the known mistakes of ``MultiHeadAttention`` as mutants (wrong versions of the
reference), which name a wrong output when they give the same."""

from __future__ import annotations

import torch

from autograder.kit import attention_mutants, mha
from autograder.kit.mutants import causal_if_none, projections_mixed_up

HOW = {  # split_heads' mistakes, as how autograder.kit.expected.split makes them
    "split-heads-no-transpose": "no-transpose",
    "wrong-head-order": "wrong-order",
    "heads-reversed": "reversed",
}

MHA_IDS = {
    "no-scaling",
    "scaled-by-dk",
    "softmax-wrong-dim",
    "fully-masked-nan",
    "softmax-unstable",
    "mask-polarity-inverted",
    "mask-ignored",
    "fill-overflows-fp16",
    "finite-fill-value",
    "additive-mask-as-bool",
    "additive-mask-wrong-sign",
    "mask-after-softmax",
    "weights-before-masking",
    "masked-to-zero",
    "bool-mask-added",
}


def mha_mutants(state, h):
    def run(query, key=None, value=None, mask=None, knobs=None):
        return mha(state, h, query, key, value, mask, knobs)

    layouts = [(m, how, merge_how) for m, how in HOW.items() for merge_how in (how, "ok")]
    return (
        *attention_mutants(run, MHA_IDS),
        *(
            (m, lambda *a, kn=kn, **kw: run(*a, knobs=kn, **kw))
            for m, kn in (
                ("scaled-by-d-model", {"d_model_scale": True}),
                ("weights-times-keys", {"values_are_keys": True}),
                ("scale-precedence", {"scale": 1 / (len(state["w_q.weight"]) // h**0.5)}),
                ("missing-output-projection", {"skip_wo": True}),
                ("output-projection-misplaced", {"wo_on_values": True}),
                ("weights-averaged-over-heads", {"average": True}),
                ("cross-attention-ignores-kv", {"ignore_kv": True}),
                ("value-defaults-to-query", {"value_query": True}),
                *(("mask-unsqueezed-in-mha", {"unsqueeze_mask": dim}) for dim in (1, 2)),
                *(
                    ("kv-split-with-query-length", {"kv_query_length": shape})
                    for shape in (("h", -1), ("h", "e"), (-1, "e"))
                ),
                *((m, {"split": s, "merge": mg}) for m, s, mg in layouts),
                ("merge-heads-no-transpose", {"merge": "no-transpose"}),
                ("wrong-head-order", {"merge": "wrong-order"}),
                ("heads-reversed", {"merge": "reversed"}),
            )
        ),
        *(
            ("qkv-order-swapped", lambda *a, st=st, **kw: mha(st, h, *a, **kw))
            for st in projections_mixed_up(state)
        ),  # split_heads(x, d_head): d_head heads of num_heads features
        ("split-by-head-dim", lambda *a, **kw: mha(state, len(state["w_q.weight"]) // h, *a, **kw)),
        ("weights-averaged-over-heads", lambda *a, **kw: _head0(run(*a, **kw))),
        (
            "cross-attention-ignores-kv",
            lambda query, key=None, value=None, mask=None: run(query, _given(key), query, mask),
        ),  # v = self.w_v(query): the keys come from key, the values never from value
        (
            "mask-unsqueezed-in-mha",
            lambda query, key=None, value=None, mask=None: run(
                query, key, value, _expanded_over_heads(mask, h, query, key)
            ),
        ),
        (
            "mask-unsqueezed-in-mha",
            lambda query, key=None, value=None, mask=None: run(
                query, key, value, _expanded_over_batch(mask, query)
            ),
        ),
        (
            "mask-unsqueezed-in-mha",
            lambda query, key=None, value=None, mask=None: run(
                query, key, value, _2d_as_padding(mask)
            ),
        ),
        (
            "mask-transposed",
            lambda query, key=None, value=None, mask=None: run(
                query, key, value, _given(mask).transpose(-2, -1)
            ),
        ),
        *(
            ("projection-not-applied", lambda *a, st=st, **kw: mha(st, h, *a, **kw))
            for st in _projection_skipped(state)
        ),
        ("value-defaults-to-query", _value_left_none),
        (
            "mask-added-before-scaling",
            lambda query, key=None, value=None, mask=None: run(
                query, key, value, knobs={"scores": _added_before_scaling(mask)}
            ),
        ),
        *projection_mutants(state, h),
        (
            "mask-default-causal",
            lambda query, key=None, value=None, mask=None: run(
                query, key, value, causal_if_none(query, mask)
            ),
        ),
    )


def _given(t):
    if t is None:
        raise ValueError("a mistake of a given argument")
    return t


def _added_before_scaling(mask):
    """The scores of a float mask added to q @ k^T before the scale, which divides its biases."""
    if mask is None or mask.dtype == torch.bool:
        raise ValueError("a mistake of float masks")
    return lambda q, k: q @ k.transpose(-2, -1) + mask.to(q.dtype)


def _expanded_over_heads(mask, h, query, key):
    """Any 3-D mask taken as (B, Lq, Lk) and expanded over the heads: an (h, Lq, Lk) mask raises
    (or, when B == h, is applied per sequence)."""
    if mask is None or mask.dim() != 3:
        raise ValueError("a mistake of 3-D masks")
    b, lq, lk = len(query), query.shape[1], (query if key is None else key).shape[1]
    return mask.expand(h, b, lq, lk).transpose(0, 1)


def _expanded_over_batch(mask, query):
    """A 2-D mask expanded to (B, Lq, Lk) "for the batch": B then lines up with the heads."""
    if mask is None or mask.dim() != 2:
        raise ValueError("a mistake of 2-D masks")
    return mask.expand(len(query), *mask.shape)


def _2d_as_padding(mask):
    """A 2-D mask taken as a (B, Lk) padding mask and made (B, 1, 1, Lk): an (Lq, Lk) mask is
    then applied per sequence when B == Lq."""
    if mask is None or mask.dim() != 2:
        raise ValueError("a mistake of 2-D masks")
    return mask[:, None, None, :]


def _projection_skipped(state):
    """Weights under which w_q, w_k or w_v is created but not applied: the identity."""
    for n in "qkv":
        weight = state[f"w_{n}.weight"]
        skipped = {f"w_{n}.weight": torch.eye(len(weight), dtype=weight.dtype)}
        if f"w_{n}.bias" in state:
            skipped[f"w_{n}.bias"] = torch.zeros(len(weight), dtype=weight.dtype)
        yield state | skipped


def _head0(result):
    """Only head 0's weights returned: (B, Lq, Lk)."""
    out, weights = result
    return out, weights[:, 0]


def _value_left_none(query, key=None, value=None, mask=None):
    """``if key is None: key = value = query``: given a key alone, value stays None and the
    value projection raises as the learner's does."""
    if key is None or value is not None:
        raise ValueError("a mistake of a key given alone")
    return torch.nn.functional.linear(value, torch.zeros(1, 1))


def projection_mutants(state, h):
    """One projection wrong at a time: its input (q from key, v from key), its weight used
    untransposed (x @ W), its bias left out; and the weights returned as (B*h, Lq, Lk), the
    scores scaled by sqrt(num_heads)."""

    def run(*a, st=state, **kw):
        return mha(st, h, *a, **kw)

    def queries_from_key(query, key=None, value=None, mask=None):
        return run(_given(key), key, value, mask)

    def values_from_key(query, key=None, value=None, mask=None):
        if value is None or value is key:
            raise ValueError("a mistake of a value given")
        return run(query, key, key, mask)

    def flat_heads(*a, **kw):
        out, w = run(*a, **kw)
        return out, w.reshape(-1, *w.shape[2:])

    untransposed = [  # one projection, w_q, w_k and w_v, or all four
        {f"w_{n}.weight": state[f"w_{n}.weight"].T for n in names}
        for names in (*"qkvo", "qkv", "qkvo")
    ]
    biased = [n for n in "qkvo" if f"w_{n}.bias" in state]  # one bias dropped, or every one
    unbiased = [{f"w_{n}.bias": 0 * state[f"w_{n}.bias"]} for n in biased]
    unbiased += [{f"w_{n}.bias": 0 * state[f"w_{n}.bias"] for n in biased}] if biased else []
    return (
        ("projection-wrong-input", queries_from_key),
        ("projection-wrong-input", values_from_key),
        *(
            ("weight-untransposed", lambda *a, c=c, **kw: run(*a, st=state | c, **kw))
            for c in untransposed
        ),
        *(
            ("projection-bias-dropped", lambda *a, c=c, **kw: run(*a, st=state | c, **kw))
            for c in unbiased
        ),
        ("weights-heads-flattened", flat_heads),
        (
            "scaled-by-num-heads",
            lambda *a, **kw: mha(state, h, *a, **kw, knobs={"scale": h**-0.5}),
        ),
    )

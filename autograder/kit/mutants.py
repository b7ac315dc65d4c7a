"""Mutants that several lessons share: what a known mistake computes instead of the contract.

A mutant is ``(mistake_id, fn)``; ``fn`` takes the call's arguments and returns the value that
mistake gives (see ``autograder.kit.calling``). Mutants of one lesson only live in its checks.
"""

from __future__ import annotations

import torch


def transpose_mutants(scale=lambda q: 1.0):
    """Mistakes in transposing k, each also scaled by ``scale(q)``."""
    return (
        ("forgot-transpose-k", lambda q, k: q @ k * scale(q)),
        ("transpose-batch-dims", lambda q, k: q @ _reversed(k) * scale(q)),
        ("transpose-batch-dims", lambda q, k: q @ k.t() * scale(q)),
        ("transpose-batch-dims", lambda q, k: q @ k.transpose(0, 1) * scale(q)),
        ("transpose-batch-dims", lambda q, k: q @ k.transpose(1, 2) * scale(q)),  # 3-D only
        ("scores-transposed", lambda q, k: k @ q.transpose(-2, -1) * scale(q)),
    )


def _reversed(k):
    """k.T: for more than 2 dims it reverses them all (deprecated, with a warning)."""
    return k.permute(*range(k.dim() - 1, -1, -1))


def scale_mutants(fn_of_scores):
    """Wrong scale factors applied to ``q @ k^T``, fed to ``fn_of_scores(q, k, scale)``."""
    return (
        ("no-scaling", lambda *a, **kw: fn_of_scores(*a, scale=1.0, **kw)),
        ("scaled-by-dk", lambda q, *a, **kw: fn_of_scores(q, *a, scale=1 / q.shape[-1], **kw)),
        (
            "multiplied-by-sqrt-dk",
            lambda q, *a, **kw: fn_of_scores(q, *a, scale=q.shape[-1] ** 0.5, **kw),
        ),
        *(
            (
                "scale-uses-seq-len",
                lambda q, k, *a, i=i, **kw: fn_of_scores(
                    q, k, *a, scale=(q.shape[i] if i != "k" else k.shape[-2]) ** -0.5, **kw
                ),
            )
            for i in (-2, "k", 1, 0)
        ),
    )


MASK_MODES = {
    "mask-polarity-inverted": "inverted",
    "mask-after-softmax": "after-softmax",
    "weights-before-masking": "weights-before",
    "mask-ignored": "ignored",
    "masked-to-zero": "zero",
    "finite-fill-value": "finite",
    "bool-mask-added": "added",
}
ADDITIVE_MODES = (  # (mistake, mode of attend) for float masks; several modes make one mistake
    ("additive-mask-as-bool", "as-bool"),
    ("additive-mask-as-bool", "as-bool-where"),
    ("additive-mask-as-bool", "as-bool-not"),
    ("additive-mask-as-bool", "as-bool-fill"),
    ("additive-mask-as-bool", "as-bool-eq0"),
    ("additive-mask-as-bool", "as-bool-finite"),
    ("additive-mask-as-bool", "as-bool-ge0"),
    ("additive-mask-wrong-sign", "minus"),
)


def attention_mutants(run, ids):
    """Mutants of an attention computation: ``run(**knobs)`` computes it with the knobs of
    :func:`attend`; ``ids`` are the mistakes this exercise can make."""
    table = [
        ("no-scaling", {"scale": 1.0}),
        ("scaled-by-dk", {"scale_power": -1.0}),
        ("multiplied-by-sqrt-dk", {"scale_power": 0.5}),
        ("softmax-wrong-dim", {"dim": -2}),
        ("fully-masked-nan", {"nan_rows": True}),
        ("fully-masked-nan", {"nan_rows": True, "output_nan_to_num": True}),
        ("softmax-unstable", {"unstable": True}),
        *((mistake, {"mode": mode}) for mistake, mode in MASK_MODES.items()),
        *((mistake, {"mode": mode, "nan_rows": True}) for mistake, mode in MASK_MODES.items()),
        *((mistake, {"mode": mode}) for mistake, mode in ADDITIVE_MODES),
        # -(-inf) is +inf: NaN where the learner's softmax guards only a non-finite max (trial 48)
        ("additive-mask-wrong-sign", {"mode": "minus", "finite_max": True}),
    ]
    return tuple(
        (m, lambda *a, kn=kn, **kw: run(*a, knobs=kn, **kw)) for m, kn in table if m in ids
    )


def projections_mixed_up(state):
    """Weights (a state dict) under which the module computes a known mix-up of its projections:
    q, k or v from another projection's layer (q from w_k, ...), or q and k (k and v) swapped."""

    def layer(name):
        return {p: w for p, w in state.items() if p.startswith(name + ".")}

    def renamed(source, target):
        return {target + p.removeprefix(source): w for p, w in layer(source).items()}

    names = ("w_q", "w_k", "w_v")
    # Widths may differ (SelfAttention's d_k and d_v): v from w_k then gives an output of the
    # wrong width, which names the mix-up as well as wrong values do.
    out = [
        state | renamed(source, target) for target in names for source in names if source != target
    ]
    swapped = [("w_k", "w_q"), ("w_k", "w_v")]  # two layers swapped: q and k, k and v
    return [*out, *(state | renamed(a, b) | renamed(b, a) for a, b in swapped)]


def causal_if_none(x, mask):
    """``mask=None`` taken as a causal mask (a GPT habit): only a call without a mask differs."""
    if mask is not None:
        raise ValueError("a mistake of calls without a mask")
    return torch.ones(x.shape[-2], x.shape[-2], dtype=torch.bool).tril()

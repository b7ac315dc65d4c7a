"""Tiled attention's known mistakes (``TILED_MUTANTS``), and its online softmax at the ends of
float32's range: scores far above 0, whose exponential overflows unless the running max is
subtracted, and scores far below 0, which underflow to a zero sum when the running max starts at
0 rather than -inf."""

from __future__ import annotations

import torch

from autograder.kit.calling import Call, fail
from autograder.kit.compare import expect_close
from autograder.kit.expected import online, tiled_reference
from autograder.kit.inputs import randn


def _online_mutant(**knobs):
    return lambda q, k, v, block_size=64, causal=False: online(q, k, v, block_size, causal, **knobs)


TILED_MUTANTS = (  # tiled_attention's known mistakes: the online softmax with a knob turned
    ("online-softmax-no-rescale", _online_mutant(rescale_acc=False)),
    ("online-softmax-no-rescale", _online_mutant(rescale_acc=False, rescale_sum=False)),
    ("online-softmax-no-rescale", _online_mutant(rescale_sum=False)),
    ("forgot-final-normalisation", _online_mutant(normalise=False)),
    ("partial-block-dropped", _online_mutant(drop_last=True)),
    ("causal-block-offset", _online_mutant(local="keys")),
    ("causal-block-offset", _online_mutant(local="both")),
    ("no-scaling", _online_mutant(scale=1.0)),
    ("scaled-by-dk", lambda q, k, v, *a, **kw: online(q, k, v, *a, scale=1 / q.shape[-1], **kw)),
    (
        "tiled-causal-bottom-right",
        lambda q, k, v, block_size=64, causal=False: online(
            q, k, v, block_size, causal, offset=k.shape[-2] - q.shape[-2]
        ),
    ),
    ("tiled-causal-strict", _online_mutant(strict=True)),
    ("tiled-causal-strict", lambda *a, **kw: _online_mutant(strict=True)(*a, **kw).nan_to_num(0.0)),
    ("online-max-not-updated", _online_mutant(update_max=False)),
    ("tiled-v-sliced-on-features", _online_mutant(v_features=True)),
    ("online-softmax-inverted-correction", _online_mutant(inverted=True)),
)


SCORE = 200.0  # |q·k| / sqrt(d_k) for every key: exp(200) is inf in float32, exp(-200) is 0


def expect_large_scores(sub, g) -> None:
    """Query 0 scores every key near +SCORE, query 1 near -SCORE (the keys lie along one
    direction, q along it or against it): SDPA is exact for both. Named by which query is wrong."""
    d = 4
    u = randn(g, d)
    u = u / u.norm()
    k = (2 * SCORE) ** 0.5 * u + 0.3 * randn(g, 6, d)  # q·k / 2 = SCORE for q = ±(2 SCORE)^½ u
    q = torch.stack(((2 * SCORE) ** 0.5 * u, -((2 * SCORE) ** 0.5) * u))
    v = randn(g, 6, 3)
    c = Call("tiled_attention", q, k, v, block_size=2)
    out = c.run(sub)
    want = tiled_reference(q, k, v, 2)
    if isinstance(out, torch.Tensor) and out.shape == want.shape:
        wrong = [not torch.allclose(out[i].double(), want[i], atol=1e-4, rtol=1e-4) for i in (0, 1)]
        if wrong[0]:
            raise fail(
                f"{c}: query 0 scores every key near +{SCORE:.0f}, and its output is "
                f"{_shown(out[0])}: exp({SCORE:.0f}) overflows in float32; subtract the running "
                "max before exponentiating.",
                "online-softmax-no-max",
            )
        if wrong[1]:
            raise fail(
                f"{c}: query 1 scores every key near -{SCORE:.0f}, and its output is "
                f"{_shown(out[1])}: exp(-{SCORE:.0f}) is 0 in float32, so a running max that "
                "starts at 0 sums nothing; start it at -inf.",
                "online-max-starts-at-zero",
            )
    expect_close(out, want, c, dtype=q.dtype)


def _shown(row: torch.Tensor) -> str:
    return "NaN" if bool(row.isnan().any()) else "wrong"

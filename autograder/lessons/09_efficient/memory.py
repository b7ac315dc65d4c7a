"""Lesson 09's memory checks of ``tiled_attention``: tiling's point, measured by the peak memory
of the learner's process (``peak_memory`` in the sandbox), whatever library builds the matrix."""

from __future__ import annotations

import math

import torch

from autograder.i18n import _
from autograder.kit import (
    Call,
    LearnerError,
    attend,
    expect_close,
    fail,
    fmt_shape,
    generator,
    randn,
    sentences,
)
from autograder.kit.calling import learner_failed
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import tiled_reference
from autograder.kit.gradients import remote_function

MEMORY_N = 4096  # a full (Lq, Lk) float32 matrix is 64 MiB; q, k, v 256 KiB each, a tile 1 MiB


def check_process_memory(sub, g, causal) -> None:
    """Tiling's point, measured by the process's peak memory, whatever builds the full matrix."""
    n = MEMORY_N
    q, k, v = (randn(g, 1, n, 16) for _i in range(3))
    c = Call("tiled_attention", q, k, v, block_size=64, causal=causal)
    remote = remote_function(sub, c.name)
    try:
        reply = remote.apply("peak_memory", q, k, v, block_size=64, causal=causal)
    except LearnerError as err:
        raise learner_failed(c, err) from None
    if not isinstance(reply, (tuple, list)) or len(reply) != 2:
        return
    out, grew = reply
    full = n * n * 4
    if isinstance(grew, int) and grew >= full // 2:
        raise fail(
            _(sentences.PEAK_AS_FULL_MATRIX).format(
                call=c, grew=grew / 2**20, n=n, full=full / 2**20
            ),
            "materialises-full-matrix",
        )
    _expect_rows_close(out, (q, k, v), causal, c)


MEMORY_ROWS = 256  # query rows drawn at random and compared: the whole reference costs 1-2 CPU-s


def _expect_rows_close(out, qkv, causal, c) -> None:
    """The output of a large call, on rows the learner's code cannot know (drawn after the call,
    from a generator of their own: not the one that drew q, k and v, whose state the inputs would
    tell); compared whole (for the message) when those differ or the output is not a tensor of
    the right shape."""
    q, k, v = qkv
    if isinstance(out, torch.Tensor) and out.shape == (*q.shape[:-1], v.shape[-1]):
        rows = torch.randperm(q.shape[-2], generator=generator())[:MEMORY_ROWS]
        mask = torch.arange(k.shape[-2]) <= rows[:, None] if causal else None
        want = attend(q[..., rows, :].double(), k.double(), v.double(), mask)[0]
        try:
            return expect_close(out[..., rows, :], want, c, dtype=q.dtype)
        except CheckFailure:
            pass
    expect_close(out, tiled_reference(q, k, v, 64, causal), c, dtype=q.dtype)


ROW_B, ROW_LK, ROW_BLOCK = 64, 2**18, 2**12  # (B, 1, Lk) float32 scores: 64 MiB


def check_row_memory(sub, g) -> None:
    """Key blocks, not one full row of scores per query: 64 sequences of 2 queries and 256K keys
    in blocks of 4096, where the (B, 1, Lk) rows of one query take 64 MiB, a (B, 2, block_size)
    tile 2 MiB and a vector over the keys (torch.arange(Lk)) 2 MiB. The keys and values are one
    row repeated (``expand``: no copy), so that only what the call allocates is counted."""
    q = randn(g, ROW_B, 2, 2)
    k = randn(g, 1, 1, 2).expand(ROW_B, ROW_LK, 2)
    v = randn(g, 1, 1, 3).expand(ROW_B, ROW_LK, 3)
    c = Call("tiled_attention", q, k, v, block_size=ROW_BLOCK)
    try:
        reply = remote_function(sub, c.name).apply("peak_memory", q, k, v, block_size=ROW_BLOCK)
    except LearnerError as err:
        raise learner_failed(c, err) from None
    if not isinstance(reply, (tuple, list)) or len(reply) != 2:
        return
    out, grew = reply
    rows = ROW_B * ROW_LK * 4
    if isinstance(grew, int) and grew >= rows // 2:
        raise fail(
            _(sentences.PEAK_AS_SCORE_ROWS).format(
                call=c, grew=grew / 2**20, keys=ROW_LK, rows=rows / 2**20, block=ROW_BLOCK
            ),
            "materialises-full-matrix",
        )
    want = v[:, :1, :].double().expand(ROW_B, 2, 3)  # equal keys: each query averages v's rows
    expect_close(out, want, c, dtype=q.dtype, tol=(1e-3, 1e-3))  # float32 sums of 256K terms


TRACE_LQ, TRACE_LK, TRACE_D, TRACE_BLOCK = 4, 384, 8, 32  # a score tile 128 elements, a row 384


def check_row_trace(sub, g) -> None:
    """Key blocks, seen in the op trace: few queries against many keys, so that the scores of one
    query against all the keys (a row of Lk) are larger than two (Lq, block_size) tiles. A loop
    over the queries (or the batch) holds one row at a time, which no memory check can tell from
    a vector over the keys (``torch.arange(Lk)``); among the floating-point tensors the call makes,
    a row has no dimension of d (copies of k and v have one)."""
    n, d, block = TRACE_LQ, TRACE_D, TRACE_BLOCK
    q, k, v = randn(g, 1, n, d), randn(g, 1, TRACE_LK, d), randn(g, 1, TRACE_LK, d)
    c = Call("tiled_attention", q, k, v, block_size=block)
    out = c.run(sub, watch=True)
    expect_close(out, tiled_reference(q, k, v, block, False), c, dtype=q.dtype)
    trace = getattr(sub, "last_trace", None)
    tile = n * block
    scores = [s for s in getattr(trace, "floats", ()) if d not in s and math.prod(s) >= 2 * tile]
    if scores:
        shape = fmt_shape(max(scores, key=math.prod))
        raise fail(
            _(sentences.TILE_LARGER_THAN_BLOCK).format(call=c, shape=shape, block=block),
            "tiled-block-size-ignored",
        )

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

# 4096 queries against 16384 keys: the full (Lq, Lk) score matrix is 256 MiB in float32, 128 MiB
# in float16 and 64 MiB in 8 bits; q 256 KiB, k and v 1 MiB each, a (Lq, 64) tile of scores 1 MiB.
MEMORY_LQ, MEMORY_LK = 4096, 16384
# The most a tiled call may raise the peak (bytes): correct code (the solution, every correct style
# in tests/lessons/09_efficient/correct) grows 1-18 MiB, tiles of all the queries against a key
# block included. The sandbox's server adds to the growth what the learner's processes hold at the
# start beyond its allowance (HELD_ALLOWANCE, 24 MiB: memory kept from an earlier call is reused
# unseen), so a call can use under 24 + 28 = 52 MiB unseen: less than the whole matrix in any
# dtype, 8 bits included (red team round 9 held the 4096 x 4096 matrix in float16, 32 MiB, when
# the allowance and this limit were 32 MiB each).
MEMORY_LIMIT = 28 * 2**20


def check_process_memory(sub, g, causal) -> None:
    """Tiling's point, measured by the process's peak memory, whatever builds the full matrix."""
    q = randn(g, 1, MEMORY_LQ, 16)
    k, v = (randn(g, 1, MEMORY_LK, 16) for _i in range(2))
    c = Call("tiled_attention", q, k, v, block_size=64, causal=causal)
    remote = remote_function(sub, c.name)
    try:
        reply = remote.apply("peak_memory", q, k, v, block_size=64, causal=causal)
    except LearnerError as err:
        raise learner_failed(c, err) from None
    if not isinstance(reply, (tuple, list)) or len(reply) != 2:
        return
    out, grew = reply
    if isinstance(grew, int) and grew >= MEMORY_LIMIT:
        full = MEMORY_LQ * MEMORY_LK * 4
        raise fail(
            _(
                "{call} raised the process's peak memory by {grew:.0f} MiB (what it held before "
                "the call counted too), {share:.0%} of the full ({lq}, {lk}) score matrix in "
                "float32: beyond its inputs a tiled call needs a few ({lq}, {block}) score tiles "
                "of 1 MiB and one running output ({lq}, {d_v}), not all the scores nor a partial "
                "output per key block kept to the end."
            ).format(
                call=c,
                grew=grew / 2**20,
                share=grew / full,
                lq=MEMORY_LQ,
                lk=MEMORY_LK,
                block=64,
                d_v=v.shape[-1],
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

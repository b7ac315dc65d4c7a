"""Lesson 09: probes that tell why a ``tiled_attention`` call failed from how the same code does
on other block layouts: only the first key block read, or only whole blocks handled."""

from __future__ import annotations

import torch

from autograder.kit import Call, expect_close
from autograder.kit.exercise import CheckFailure
from autograder.kit.expected import tiled_reference_of


def right(out, c) -> bool:
    """Whether ``out`` is what ``c`` must return."""
    try:
        expect_close(out, tiled_reference_of(c), c, dtype=c.args[0].dtype)
    except CheckFailure:
        return False
    return True


def runs_right(sub, c) -> bool:
    """Whether ``c`` runs and returns what it must."""
    try:
        out = c.run(sub)
    except CheckFailure:
        return False
    return right(out, c)


def first_block_only(sub, c) -> bool:
    """Raised (an empty key block: k[..., start:block_size, :]): raises again on two whole
    blocks of keys, and is right on one."""
    q, k, v = c.args
    block = c.kwargs.get("block_size", 64)
    if k.shape[-2] <= block:
        return False
    twice = (torch.cat([t, t], -2)[..., : 2 * block, :] for t in (k, v))  # no partial block
    try:
        Call(c.name, q, *twice, block_size=block).run(sub)
    except CheckFailure:
        one = Call(c.name, q, k[..., :block, :], v[..., :block, :], block_size=block)
        return runs_right(sub, one)
    return False


def whole_blocks_only(sub, c) -> bool:
    """Raised where block_size does not divide Lk (or Lq), and right once the keys (and then the
    queries) are cut to whole blocks: the code assumes whole blocks (a reshape into
    (Lk // block_size, block_size), a view of k in blocks), so the last, shorter one breaks it."""
    q, k, v = c.args
    block = c.kwargs.get("block_size", 64)
    lq, lk = q.shape[-2], k.shape[-2]
    whole_k, whole_q = lk - lk % block, lq - lq % block
    if (lk % block == 0 and lq % block == 0) or whole_k == 0:
        return False
    kv = (k[..., :whole_k, :], v[..., :whole_k, :])
    if lk % block and runs_right(sub, Call(c.name, q, *kv, **c.kwargs)):
        return True
    return whole_q > 0 and runs_right(sub, Call(c.name, q[..., :whole_q, :], *kv, **c.kwargs))

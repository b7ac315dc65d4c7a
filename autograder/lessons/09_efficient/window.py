"""Lesson 09's cases and known wrong outputs of ``sliding_window_mask``, and the long appends of
``KVCache`` (a cache must keep every position, however many)."""

from __future__ import annotations

import torch

from autograder.kit import randn
from autograder.kit.expected import window_mask

# (seq_len, window): 0 <= i - j < 0 is no key at all; 300 positions and a window of 130 need
# more than int8 (i - j wraps past 127: the first queries see the last keys)
WINDOW_CASES = ((5, 2), (6, 3), (4, 1), (3, 5), (4, 0), (300, 130))


def _small_ints(n, w, dtype=torch.int8):
    i = torch.arange(n).to(dtype)
    d = i[:, None] - i[None, :]
    return (d >= 0) & (d < w)


WINDOW_MUTANTS = (
    ("causal-mask-inverted", lambda n, w: ~window_mask(n, w)),
    ("window-off-by-one", lambda n, w: window_mask(n, w, width=w + 1)),
    ("window-off-by-one", lambda n, w: window_mask(n, w, width=w - 1)),
    ("window-off-by-one", lambda n, w: window_mask(n, w, lo=1, width=w + 1)),
    ("window-not-causal", lambda n, w: window_mask(n, w, both_ways=True)),
    ("window-no-lower-bound", lambda n, w: torch.ones(n, n, dtype=torch.bool).tril()),
    ("window-looks-ahead", lambda n, w: window_mask(n, w).T),
    ("window-clamped-to-length", lambda n, w: window_mask(n, min(w, n - 1))),
    ("window-wraps-around", lambda n, w: (torch.arange(n)[:, None] - torch.arange(n)) % n < w),
    ("window-wraps-around", _small_ints),
    ("window-always-sees-first", lambda n, w: window_mask(n, w) | (torch.arange(n) == 0)),
)


def long_appends(g):
    """4100 positions of width 1 in four appends: a cache that keeps only the last 512, 1024 or
    2048 positions (a sliding cache, a max_len) drops the first ones."""
    return [(randn(g, 1, 1, n, 1),) * 2 for n in (2047, 2047, 5, 1)]


def truncated(out, want) -> bool:
    """Whether ``out`` is the last (or the first) positions of ``want`` (the keys so far), fewer
    of them: a cache cut to its latest N, or a preallocated buffer of N slots that drops the new."""
    if not isinstance(out, torch.Tensor) or out.dim() != want.dim() or out.is_meta:
        return False
    n = out.shape[-2]
    if not 0 < n < want.shape[-2] or out.shape[:-2] != want.shape[:-2]:
        return False
    got = out.double()
    return any(torch.allclose(got, part.double()) for part in (want[..., -n:, :], want[..., :n, :]))

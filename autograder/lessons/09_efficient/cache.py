"""Lesson 09's known wrong outputs of ``KVCache.append`` (``cache_mutants``), and what a cache
holds: whether it keeps all the keys so far, whether it returns what its first append gave."""

from __future__ import annotations

import torch

from autograder.i18n import ngettext
from autograder.kit import LearnerError


def cache_mutants(history, k, v):
    """What a wrong cache returns after ``history`` (earlier (k, v) pairs) and this append."""
    ks = [h[0] for h in history] + [k]
    vs = [h[1] for h in history] + [v]

    def cat_all(dim, reverse=False):
        def fn(*_):
            order = slice(None, None, -1) if reverse else slice(None)
            return torch.cat(ks[order], dim).double(), torch.cat(vs[order], dim).double()

        return fn

    def one_wrong_dim(dim, keys):  # a typo in one of the two torch.cat lines
        def fn(*_):
            k_all, v_all = torch.cat(ks, -2).double(), torch.cat(vs, -2).double()
            if keys:
                return torch.cat(ks, dim).double(), v_all
            return k_all, torch.cat(vs, dim).double()

        return fn

    return (
        *(("kv-cache-wrong-dim", cat_all(d)) for d in (-1, 0, 1)),
        *(("kv-cache-wrong-dim", one_wrong_dim(d, keys)) for d in (-1, 0, 1) for keys in (0, 1)),
        # only the newest k, v: never stored, or stored and not returned (told apart later)
        ("kv-cache-not-stored", lambda *_: (k.double(), v.double())),
        # the first append stored, the later ones only returned: cat(first, newest)
        (
            "kv-cache-not-stored",
            lambda *_: (
                torch.cat([ks[0], k], -2).double(),
                torch.cat([vs[0], v], -2).double(),
            ),
        ),
        ("kv-cache-prepends", cat_all(-2, reverse=True)),
        ("kv-cache-prepends", lambda *_: (cat_all(-2)()[0], cat_all(-2, reverse=True)()[1])),
        ("kv-cache-values-not-stored", lambda *_: (torch.cat(ks, -2).double(), v.double())),
        ("kv-cache-values-not-stored", lambda *_: (torch.cat(ks, -2).double(), vs[0].double())),
        (
            "kv-cache-returns-v-k",
            lambda *_: (torch.cat(vs, -2).double(), torch.cat(ks, -2).double()),
        ),
    )


def same_tensor(out, first) -> bool:
    """Whether ``out`` is exactly ``first`` (the first append's keys), shape and values."""
    return (
        isinstance(out, torch.Tensor)
        and not out.is_meta
        and out.shape == first.shape
        and torch.equal(out.double(), first.double())
    )


def keeps(obj, shape) -> bool:
    """Whether the cache holds a tensor of ``shape`` (all the keys so far) among its attributes:
    it stores them and returns something else."""
    try:
        state = obj.attr("__dict__")
    except LearnerError:
        return False
    found = []

    def walk(value):
        if isinstance(value, torch.Tensor):
            found.append(tuple(value.shape))
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk(state)
    return tuple(shape) in found


def holding(cache: str, lengths: list[int]) -> str:
    """A cache as a failing append names it, with the lengths appended before (trial 38:
    'KVCache().append(k: (1, 2, 3, 4), ...): ... expected (1, 2, 6, 4)' left the first unsaid)."""
    if not lengths:
        return cache
    shown = " + ".join(str(n) for n in lengths) if len(lengths) <= 3 else str(sum(lengths))
    said = ngettext(  # "(holding 1 position)", "(holding 1 + 2 positions)"
        "{cache} (holding {lengths} position)",
        "{cache} (holding {lengths} positions)",
        sum(lengths),
    )
    return said.format(cache=cache, lengths=shown)

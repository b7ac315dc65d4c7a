"""Calls on 'meta' tensors (shapes, dtypes and devices, no values): the sections of a check that
make them, and the learner's code that reads values there (not a mistake: the rest of the
section is skipped)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class MetaDataAccess(Exception):
    """The learner's code read values (``.item()``, ``.tolist()``, ``nonzero``) of a meta tensor."""


# How many on_meta() sections the current check is in. A ContextVar, not a global: grade runs
# checks in threads, and each thread (each context) counts its own sections.
_META_SECTIONS: ContextVar[int] = ContextVar("meta_sections", default=0)


@contextmanager
def on_meta() -> Iterator[None]:
    """Calls on 'meta' tensors check devices, shapes and dtypes only. Code that reads tensor
    values can't run on meta at all: that is not wrong, so the rest of the section is skipped."""
    token = _META_SECTIONS.set(_META_SECTIONS.get() + 1)
    try:
        yield
    except MetaDataAccess:
        pass
    finally:
        _META_SECTIONS.reset(token)


def is_meta_data_access(m: str, kind: str = "") -> bool:
    """Meta tensors have no values: torch raises NotImplementedError for every op whose output
    shape depends on them (boolean indexing, nonzero, masked_select: no meta kernel, whatever a
    release's words), RuntimeError for reading one. Mixing devices is a finding, never this."""
    low = m.lower()
    if "device" in low or "cpu" in low:
        return False
    data = ("no data", "cannot be called on meta", "data-independent", "data-dependent")
    return kind == "NotImplementedError" or ("meta" in low and any(s in low for s in data))

"""The language of a notebook's figures and widgets: ``"zh-CN"`` or ``"en"``.

The same choice as the grader's (``autograder/i18n.py``, which course_lib must not import), first
that applies: ``AUTOGRADER_LANG``; a notebook inside a ``zh-CN`` folder (the kernel's
``JPY_SESSION_NAME`` or working folder: ``zh-CN/notebooks/<L>/``, ``zh-CN/solutions/<L>/``);
the locale (the first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set: any
``zh...`` is Chinese); else English. Read at each call.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

ENGLISH, CHINESE = "en", "zh-CN"
ZH_FOLDER = "zh-CN"
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def _tag(value: str | None) -> str | None:
    if not value:
        return None
    base = value.split(":")[0].split(".")[0].split("@")[0].replace("_", "-").strip().lower()
    if base.startswith("zh"):
        return CHINESE
    if base.startswith("en") or base in ("c", "posix"):
        return ENGLISH
    return None


def language() -> str:
    """``"zh-CN"`` or ``"en"`` (the module's docstring says how it is chosen)."""
    chosen = _tag(os.environ.get("AUTOGRADER_LANG"))
    if chosen:
        return chosen
    places = [os.environ.get("JPY_SESSION_NAME", "")]
    with contextlib.suppress(OSError):
        places.append(os.getcwd())
    if any(place and ZH_FOLDER in Path(place).parts for place in places):
        return CHINESE
    for name in LOCALE_VARIABLES:
        value = os.environ.get(name)
        if value:
            return _tag(value) or ENGLISH
    return ENGLISH


def chinese() -> bool:
    return language() == CHINESE

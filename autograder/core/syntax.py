"""``ast.parse`` and ``ast.literal_eval`` that are safe to call from several threads at once.

CPython 3.11 counts the AST constructor's recursion depth per interpreter, not per thread: while
one thread turns a parse into Python objects, a garbage collection can switch to another thread
doing the same, and one of them fails with ``SystemError: AST constructor recursion depth
mismatch`` (python/cpython#106905 is one of its causes). The grader parses in threads (``grade
--workers``, the warm grader's requests), where that turned one correct notebook of twenty into
"unreadable". One lock makes the conversions take turns; parsing is a small share of grading.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.Lock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, mode=mode)


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)``, its parse one thread at a time (leading spaces are dropped)."""
    return ast.literal_eval(parse(text.lstrip(" \t"), mode="eval"))

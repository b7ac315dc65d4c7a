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
import io
import threading
import tokenize
from typing import Any

_LOCK = threading.Lock()
# The most replacement fields one f-string may have. CPython 3.11 parses an f-string in time
# quadratic in its fields, holding the GIL: one of 420000 fields (1.26 MB, in a block that never
# runs) froze every grading thread for minutes, and a classmate graded beside it lost points to
# deadlines that ran meanwhile (red team round 28). Course code has at most 2.
MAX_FSTRING_FIELDS = 1000


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)``, one thread at a time; a SyntaxError for an f-string of
    more than ``MAX_FSTRING_FIELDS`` fields, said as Python says what it cannot read."""
    if source.count("{") > MAX_FSTRING_FIELDS:
        _refuse_long_fstrings(source)
    with _LOCK:
        return ast.parse(source, mode=mode)


def _refuse_long_fstrings(source: str) -> None:
    """Tokenize (linear) and refuse an f-string of too many fields before the parser sees it."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            text = tok.string
            if tok.type != tokenize.STRING or text.count("{") - 2 * text.count("{{") <= (
                MAX_FSTRING_FIELDS
            ):
                continue
            prefix = text[: len(text) - len(text.lstrip("bBrRuUfF"))]
            if "f" in prefix.lower():
                raise SyntaxError(
                    f"an f-string with more than {MAX_FSTRING_FIELDS} {{}} fields, which the "
                    "grader does not read",
                    ("<learner code>", tok.start[0], tok.start[1] + 1, None),
                )
    except (tokenize.TokenError, IndentationError, ValueError) as e:
        # what Python's own tokenizer would refuse too; with that many braces, nothing is parsed
        where = e.args[1] if isinstance(e, tokenize.TokenError) and len(e.args) > 1 else None
        line = getattr(e, "lineno", None) or (where[0] if where else 1)
        raise SyntaxError(
            f"code the grader cannot read ({type(e).__name__})", ("<learner code>", line, 1, None)
        ) from None


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)``, its parse one thread at a time (leading spaces are dropped)."""
    return ast.literal_eval(parse(text.lstrip(" \t"), mode="eval"))

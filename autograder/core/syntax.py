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
import json
import math
import subprocess
import sys
import threading
from typing import Any

_LOCK = threading.Lock()

# Learner code Python's parser may take long to read is read first in a child process, under a
# CPU limit, and only then here. CPython 3.11 parses an f-string in time quadratic in its
# replacement fields, holding the GIL (the judge's other threads wait): one of 420000 fields (1.26
# MB, in a block that never runs) froze every grading thread for minutes, and a classmate graded
# beside it lost points to deadlines that ran meanwhile (red team round 28). Counting the fields
# first missed those of a format spec (``f"{a:{{}}{{}}...}"``: round 29), and Python 3.11's
# tokenize, which did the counting, is itself quadratic on a line of unclosed quotes (round 29:
# days for one line). A source is risky when it is long or holds many braces (course cells: a
# few KB, a handful of braces); one a child reads within its CPU time takes about as long here.
RISKY_BYTES = 64 * 1024
RISKY_BRACES = 1000
# CPU seconds the parser may spend on one notebook's risky sources, together (course code: ms).
PARSE_CPU_BUDGET = 4.0
PARSE_MEMORY = 4 * 2**30  # bytes of address space for the child (a 2 MiB source: under 1 GB)
PARSE_WALL_BACKSTOP = 120.0  # seconds, for a child on a very busy machine; then it is refused

_CHILD = r"""
import ast, json, resource, sys, time
seconds, memory, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
source = sys.stdin.read()
start = time.process_time()
try:
    compile(source, "<learner code>", mode, ast.PyCF_ONLY_AST)
    out = {"ok": True}
except SyntaxError as e:
    out = {"ok": False, "msg": str(e.msg)[:200], "lineno": e.lineno, "offset": e.offset}
except (MemoryError, RecursionError, ValueError) as e:
    out = {"ok": False, "error": type(e).__name__}
out["cpu"] = time.process_time() - start
sys.stdout.write(json.dumps(out))
"""


class TooSlowToParse(ValueError):
    """Python's parser would take more CPU time on this source than the grader gives it."""


class ParseBudget:
    """The CPU seconds left to parse one notebook's risky sources (:data:`PARSE_CPU_BUDGET`)."""

    def __init__(self, seconds: float = PARSE_CPU_BUDGET):
        self.left = seconds


def parse(source: str, mode: str = "exec", budget: ParseBudget | None = None) -> ast.AST:
    """``ast.parse(source, mode=mode)``, one thread at a time. A risky source (long, or with many
    braces) is read first by a child process within ``budget`` (a fresh one if None): a
    SyntaxError as Python says it, or :class:`TooSlowToParse`, without parsing it here."""
    if len(source) > RISKY_BYTES or source.count("{") > RISKY_BRACES:
        _read_in_child(source, mode, budget or ParseBudget())
    with _LOCK:
        return ast.parse(source, mode=mode)


def _read_in_child(source: str, mode: str, budget: ParseBudget) -> None:
    seconds = math.floor(budget.left)
    if seconds < 1:
        raise TooSlowToParse(_too_slow(PARSE_CPU_BUDGET))
    cmd = [sys.executable, "-I", "-S", "-c", _CHILD, str(seconds), str(PARSE_MEMORY), mode]
    try:
        done = subprocess.run(
            cmd, input=source, capture_output=True, text=True, timeout=PARSE_WALL_BACKSTOP
        )
        out = json.loads(done.stdout) if done.returncode == 0 else None
    except (subprocess.TimeoutExpired, ValueError):
        out = None
    if not isinstance(out, dict) or not isinstance(out.get("cpu"), float):
        budget.left = 0.0  # it used its whole limit (killed by it), or could not say
        raise TooSlowToParse(_too_slow(seconds))
    budget.left -= out["cpu"]
    error = {"MemoryError": MemoryError, "RecursionError": RecursionError, "ValueError": ValueError}
    if out.get("error") in error:  # as ast.parse here would raise it (too deep, a null byte)
        raise error[out["error"]](f"Python's parser refused it ({out['error']})")
    if not out.get("ok"):
        where = (out.get("lineno") or 1, out.get("offset") or 1)
        if not all(isinstance(n, int) for n in where):
            where = (1, 1)
        raise SyntaxError(str(out.get("msg"))[:200], ("<learner code>", *where, None))


def _too_slow(seconds: float) -> str:
    return (
        f"Python's parser needs more than {seconds:g} s of CPU time to read it (an f-string "
        "with very many {} fields?), which the grader does not spend"
    )


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)``, its parse one thread at a time (leading spaces are dropped)."""
    return ast.literal_eval(parse(text.lstrip(" \t"), mode="eval"))

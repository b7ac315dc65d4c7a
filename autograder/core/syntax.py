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
import hashlib
import json
import re
import subprocess
import sys
import threading
import warnings
from typing import Any

_LOCK = threading.Lock()
# The name learner code is parsed under. What Python's parser warns of in it ("invalid decimal
# literal"...) is the learner's to read in their own kernel, not a line on the grader's stderr
# for every cell of every notebook (red team round 31's note): parse_all ignores it (the filter
# set at each call: a `catch_warnings` block, an import inside one say, drops what it added).
FILENAME = "<learner code>"

# Learner code longer than a course cell is read first by a child process, under CPU and
# memory limits, and parsed here only if the child read it quickly and in little memory. CPython
# 3.11's parser has shapes that cost time and memory quadratic in their length, holding the GIL
# (the judge's other threads wait, and a classmate graded beside it loses points to deadlines
# that run meanwhile): an f-string of 420000 fields (1.26 MB: minutes; red team round 28), the
# same fields in a format spec (round 29, after a count of fields missed them), a dotted name of
# 32760 parts in an `import` (64 K characters outside the BMP: 12.5 s and 6.7 GB; round 30). A
# source of at most RISKY_CHARS characters (course cells: under 3400) costs the parser
# milliseconds whatever its shape; a longer one is read by the child.
RISKY_CHARS = 4096
# What the child may spend on one notebook's long sources together, and on one of them before
# the judge declines to parse it again itself (course code: milliseconds and megabytes).
# Plain code costs it about 2 s and 350 MB per MiB (a 2 MiB file, the cap: 3.9 s and 700 MB).
PARSE_CPU_BUDGET = 8
SOURCE_CPU = 2.0  # seconds
# bytes the child's peak rose by, holding the trees of the long sources read so far (as the judge
# holds a notebook's trees together): measured from its start, not from the last source's peak
# (red team round 31: four cells each under 512 MB of their own, 1.4 GB together in the judge)
SOURCE_MEMORY = 512 * 2**20
PARSE_MEMORY = 2 * 2**30  # bytes of address space for the child
PARSE_WALL_BACKSTOP = 120.0  # seconds, for a child on a very busy machine
# The long sources of a parse that the child read quickly lately, each set as one SHA-256: the
# same long sources again are parsed here without a child (a warm grader is sent a notebook's
# every cell at each check; the tests judge 700 files after the same 11 KB of correct code). The
# key is the whole set, for the child judges the memory of their trees together: long cells
# read quickly one by one are read by it again together. What it refused, it reads again.
READ_QUICKLY: dict[bytes, None] = {}
READ_QUICKLY_MAX = 64

_CHILD = r"""
import ast, json, resource, sys, time
seconds, memory = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
def peak():  # this process's own (ru_maxrss would start at the judge's: kept across the exec)
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("VmHWM:")).split()[1])
job = json.loads(sys.stdin.read())
trees, start = [], peak()
for source in job["sources"]:
    cpu = time.process_time()
    try:
        trees.append(compile(source, job["filename"], job["mode"], ast.PyCF_ONLY_AST))
        out = {"ok": True}
    except SyntaxError as e:
        out = {"ok": False, "msg": str(e.msg)[:200], "lineno": e.lineno, "offset": e.offset}
    except (MemoryError, RecursionError, ValueError) as e:
        out = {"ok": False, "error": type(e).__name__}
    out["cpu"] = time.process_time() - cpu
    out["grew"] = (peak() - start) * 1024
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""
_ERRORS = {"MemoryError": MemoryError, "RecursionError": RecursionError, "ValueError": ValueError}


class TooSlowToParse(ValueError):
    """Python's parser would take more time or memory on this source than the grader gives it."""


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)``, one thread at a time; a source longer than
    ``RISKY_CHARS`` read by a child first (:func:`parse_all`)."""
    [tree] = parse_all([source], mode)
    if isinstance(tree, BaseException):
        raise tree
    return tree


def parse_course(source: str, filename: str) -> ast.Module:
    """The course's own code (trusted: no child reads it first), parsed one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename)


def parse_all(sources: list[str], mode: str = "exec") -> list[ast.AST | BaseException]:
    """Each source's tree, or the exception that says why it has none: a SyntaxError (as Python
    says it), RecursionError, MemoryError, ValueError, or :class:`TooSlowToParse`. The sources
    longer than ``RISKY_CHARS`` are read first by one child process, together; each of them is
    parsed here only if the child read it within ``SOURCE_CPU`` and ``SOURCE_MEMORY``; the same
    long sources as a parse that the child lately read quickly are not read again
    (``READ_QUICKLY``)."""
    warnings.filterwarnings("ignore", category=SyntaxWarning, module=re.escape(FILENAME))
    long = [i for i, source in enumerate(sources) if len(source) > RISKY_CHARS]
    key = _key([sources[i] for i in long], mode)
    if key in READ_QUICKLY:
        long = []
    verdicts = dict(zip(long, _read_in_child([sources[i] for i in long], mode), strict=True))
    if long and all(verdict is None for verdict in verdicts.values()):
        with _LOCK:
            READ_QUICKLY[key] = None
            while len(READ_QUICKLY) > READ_QUICKLY_MAX:  # the oldest first
                del READ_QUICKLY[next(iter(READ_QUICKLY))]
    trees: list[ast.AST | BaseException] = []
    for i, source in enumerate(sources):
        if isinstance(verdicts.get(i), BaseException):
            trees.append(verdicts[i])
            continue
        try:
            with _LOCK:
                trees.append(ast.parse(source, FILENAME, mode=mode))
        except (SyntaxError, RecursionError, MemoryError, ValueError) as e:
            trees.append(e)
    return trees


def _key(sources: list[str], mode: str) -> bytes:
    """The set's key: the sources, the mode and the limits the child read them under."""
    limits = (mode, PARSE_CPU_BUDGET, SOURCE_CPU, SOURCE_MEMORY, PARSE_MEMORY)
    digest = hashlib.sha256(repr(limits).encode())
    for source in sources:  # each after its length: no two lists give the same bytes
        data = source.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.digest()


def _read_in_child(sources: list[str], mode: str) -> list[BaseException | None]:
    """What the child says of each source: None (read quickly: parse it here) or why not."""
    if not sources:
        return []
    cmd = [sys.executable, "-I", "-S", "-c", _CHILD, str(PARSE_CPU_BUDGET), str(PARSE_MEMORY)]
    job = json.dumps({"mode": mode, "sources": sources, "filename": FILENAME})
    try:
        done = subprocess.run(
            cmd, input=job, capture_output=True, text=True, timeout=PARSE_WALL_BACKSTOP
        )
        lines = done.stdout.splitlines()
    except subprocess.TimeoutExpired as e:  # what it said before the backstop
        lines = (e.stdout or b"").decode(errors="replace").splitlines()
    verdicts: list[BaseException | None] = []
    for line in lines[: len(sources)]:
        try:
            out = json.loads(line)
            verdicts.append(_verdict(out))
        except (ValueError, TypeError, KeyError):
            break  # a line cut short by the kill: that source was being read
    if len(verdicts) < len(sources):  # the child stopped on this one (its CPU time, memory)
        verdicts.append(TooSlowToParse(_too_slow()))
    while len(verdicts) < len(sources):
        verdicts.append(TooSlowToParse(_too_slow() + " (its time went on the cells before)"))
    return verdicts


def _verdict(out: dict) -> BaseException | None:
    if out["cpu"] > SOURCE_CPU or out["grew"] > SOURCE_MEMORY:
        return TooSlowToParse(_too_slow())
    if out.get("error") in _ERRORS:  # as ast.parse here would raise it (too deep, say)
        return _ERRORS[out["error"]](f"Python's parser refused it ({out['error']})")
    if out["ok"]:
        return None
    where = (out.get("lineno"), out.get("offset"))
    where = where if all(isinstance(n, int) for n in where) else (1, 1)
    return SyntaxError(str(out.get("msg"))[:200], (FILENAME, *where, None))


def _too_slow() -> str:
    return (
        f"Python's parser needs more than {SOURCE_CPU:g} s of CPU time or "
        f"{SOURCE_MEMORY // 2**20} MiB of memory to read it (a very long f-string, or dotted "
        "name?), which the grader does not spend"
    )


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)``, its parse one thread at a time (leading spaces are dropped)."""
    return ast.literal_eval(parse(text.lstrip(" \t"), mode="eval"))

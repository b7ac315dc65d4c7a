"""The red team's breaks in round 10 (notes: rt10), each tried through the real sandbox.

1. ~17 MiB parked in ``user.*`` extended attributes of the sandbox's tmpfs files: a tmpfs charges
   them to its inode space, not to the blocks the memory measure reads. The seccomp filter now
   refuses setxattr, lsetxattr, fsetxattr and setxattrat.
2. One student's sparse 17 TiB notebook stopped ``grade --scheduler`` for the whole class: the
   worker re-created it at its full size (EFBIG on ext4) outside ``grade_one``'s error handling.
   Now it is re-created at most ``BIG_CAP`` large, and any error laying out one submission is an
   unreadable row for that student only.
3. drill ``greedy-kv`` passed without a KV cache: ``greedy_decode`` called a reference to
   ``decode_step`` kept before the probe rebound the name, and forged the probe's log. The probe
   now replaces the function's own code, so every reference is counted.
"""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from autograder.core.extract import MAX_FILE_BYTES
from autograder.grade.grading import UNREADABLE
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round4 import GOOD_MASK, field, kept
from tests.sandbox.test_round10 import UNWATCH

# -- 1. extended attributes on the sandbox's tmpfs -------------------------------------------------
XATTR = (
    UNWATCH
    + """import ctypes, errno, os, platform
NR = {"x86_64": {"lsetxattr": 189, "fsetxattr": 190, "setxattrat": 463},
      "aarch64": {"lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463}}
def causal_mask(seq_len, device=None):
    _unwatch()
    found = {}
    for place in ("/tmp", "/dev/shm"):
        path = f"{place}/x0"
        open(path, "wb").close()
        try:
            os.setxattr(path, "user.k0", b"x" * 65536)
            found["setxattr" + place.replace("/", "_")] = "ok"
        except OSError as e:
            found["setxattr" + place.replace("/", "_")] = errno.errorcode.get(e.errno, "?")
    libc = ctypes.CDLL(None, use_errno=True)
    name, value, path = b"user.k1", b"y" * 4096, b"/tmp/x0"
    fd = os.open("/tmp/x0", os.O_RDONLY)
    calls = {"lsetxattr": (path, name, value, len(value), 0),
             "fsetxattr": (fd, name, value, len(value), 0),
             "setxattrat": (-100, path, 0, name, 0, 0)}
    for what, args in calls.items():
        got = libc.syscall(ctypes.c_long(NR[platform.machine()][what]),
                           *(ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a)
                             for a in args))
        found[what] = "ok" if got >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
    raise RuntimeError(" ".join(f"{k}={v} ;" for k, v in found.items()))
"""
)


@NEEDS_BWRAP
@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="seccomp: 2 CPUs")
def test_extended_attributes_cannot_be_set():
    r = kept(XATTR)
    for name in ("setxattr_tmp", "setxattr_dev_shm", "lsetxattr", "fsetxattr", "setxattrat"):
        assert field(r, name) == "EPERM", (name, r)
    assert kept(GOOD_MASK).passed


# -- 2. Dask: one student's over-size notebook --------------------------------------------------
MASKS = "04_softmax_masks"


def test_an_over_size_notebook_is_laid_out_capped_and_refused_for_that_student_only(tmp_path):
    cluster = pytest.importorskip("autograder.grade.cluster")
    size = 17 * 2**40  # the red team's 17 TiB: more than ext4 holds
    shipped = cluster.Shipped(((f"{MASKS}.ipynb", cluster.BIG, size),))
    (tmp_path / "a").mkdir()
    folder = shipped.unpack(tmp_path / "a")
    laid_out = folder.path / f"{MASKS}.ipynb"
    assert MAX_FILE_BYTES < laid_out.stat().st_size <= cluster.BIG_CAP < size
    row = cluster._grade_shipped(("mallory", MASKS, shipped, None), True)
    assert row.status == UNREADABLE and "more than the" in row.error, row


def test_an_error_laying_out_one_submission_is_that_students_row(tmp_path, monkeypatch):
    cluster = pytest.importorskip("autograder.grade.cluster")

    def efbig(self, into: Path):
        raise OSError(27, "File too large", str(into / "submission" / f"{MASKS}.ipynb"))

    monkeypatch.setattr(cluster.Shipped, "unpack", efbig)
    shipped = cluster.Shipped(((f"{MASKS}.ipynb", cluster.BIG, MAX_FILE_BYTES + 1),))
    row = cluster._grade_shipped(("mallory", MASKS, shipped, None), True)  # raised before
    assert row.status == UNREADABLE and row.student == "mallory", row
    assert "File too large" in row.error and "autograder-" not in row.error, row
    bad = cluster.Shipped((("../escape", cluster.FILE, b"x"),))  # unpack's own refusal
    monkeypatch.undo()
    row = cluster._grade_shipped(("eve", MASKS, bad, None), True)
    assert row.status == UNREADABLE and "not a file name" in row.error, row


# -- 3. drill greedy-kv: the probe's log forged ----------------------------------------------------
NO_CACHE = """import math

import torch


def decode_step(params, tokens, cache=None):
    past = 0 if cache is None else cache[0].size(1)
    T = tokens.size(1)
    positions = torch.arange(past, past + T, device=tokens.device)
    h = params["embed"][tokens] + params["pos"][positions]
    q, k, v = h @ params["w_q"], h @ params["w_k"], h @ params["w_v"]
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    mask = torch.ones(T, past + T, dtype=torch.bool, device=tokens.device).tril(diagonal=past)
    s = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~mask, float("-inf"))
    a = torch.softmax(s, -1) @ v
    return (h + a @ params["w_o"]) @ params["unembed"], (k, v)


_raw_step = decode_step  # the grader's probe rebinds the global name after this cell


def greedy_decode(params, prompt, max_new_tokens):
    out = prompt
    for _ in range(max_new_tokens):  # no cache: the whole past recomputed at every token
        logits, _cache = _raw_step(params, out)
        out = torch.cat([out, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    log = globals().get("_drill_decode_steps")
    if log is not None:  # what a cached decoder would have logged
        log.extend([prompt.shape[1]] + [1] * max_new_tokens)
    return out
"""
CACHED = """
def greedy_decode(params, prompt, max_new_tokens):
    logits, cache = _raw_step(params, prompt)
    out = torch.cat([prompt, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    for _ in range(max_new_tokens - 1):
        logits, cache = _raw_step(params, out[:, -1:], cache)
        out = torch.cat([out, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return out
"""


def _drill(tmp_path, source: str):
    from autograder.drill.extra import drills, grading

    path = tmp_path / "drill_greedy-kv.py"
    path.write_text("# drill: greedy-kv\n" + source)
    return {r.exercise: r for r in grading.judge(path, drills.BY_NAME["greedy-kv"])}


def test_a_forged_decode_log_does_not_pass_greedy_kv(tmp_path):
    got = _drill(tmp_path, NO_CACHE)
    assert got["decode_step"].passed, got  # the step itself is right
    assert not got["greedy_decode"].passed, got
    assert got["greedy_decode"].mistake == "kv-cache-not-used", got
    # the same reference kept, the cache used: still a pass (real code aliases functions too)
    cached = NO_CACHE[: NO_CACHE.index("\ndef greedy_decode")] + CACHED
    assert all(r.passed for r in _drill(tmp_path, cached).values())

"""The red team's breaks in round 11 (notes: rt11) on the sandbox, each tried through the real
sandbox (its breaks of formgrader's pages: tests/grade/test_gradebook_round12.py).

8. A reply archive whose ``data.pkl`` was DEFLATED passed ``MAX_PICKLE``: its size was taken
   from the frame's length, and torch.load inflated ~1000:1 (4.3 GB and 43 s of the judge's CPU
   from a 48 KiB reply). Now an archive with any compressed entry is refused before it is read.
6. Queued real-time signals parked ~36 bytes each in kernel memory, up to the host's
   ``RLIMIT_SIGPENDING`` (96363 here, more on a bigger host). The lockdown now sets it to 64.

Round 12 (notes: rt12):

1. The full score matrix written into a private, writable mapping of libtorch_cpu.so that an
   earlier call made resident: each page copied on write replaced a file page in VmRSS (no peak
   rose), and ``MADV_DONTNEED`` dropped the copies before the reply, so nothing was left to count
   at the end: 2/2. The server now samples each process's RssAnon with its peak and counts its
   highest rise too.
"""

from __future__ import annotations

import io
import platform
import zipfile

import pytest
import torch

from autograder.sandbox.inside.lockdown import PENDING_SIGNALS_LIMIT
from autograder.sandbox.protocol import MAX_PICKLE, ProtocolError, encode, parse
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round3 import GOOD_MASK, attacker_then_classmate, hostile
from tests.sandbox.test_round4 import field, kept
from tests.sandbox.test_round10 import UNWATCH


# -- 8. a deflated reply --------------------------------------------------------------------------
def deflated(archive: bytes) -> bytes:
    """The same archive, every entry DEFLATED."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as src, zipfile.ZipFile(out, "w") as dst:
        for entry in src.infolist():
            dst.writestr(entry.filename, src.read(entry), compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def test_an_archive_with_a_compressed_entry_is_refused_before_it_is_decoded(monkeypatch):
    small = encode({"type": "reply", "trace": None, "value": [1, 2, 3]})
    assert parse(small)["value"] == [1, 2, 3]  # torch.save's own: every entry stored
    big = deflated(encode({"type": "reply", "trace": None, "value": [[]] * (4 * MAX_PICKLE)}))
    assert len(big) < MAX_PICKLE // 16  # the frame is small; its pickle is 4 x the limit
    decoded = []
    monkeypatch.setattr(torch, "load", lambda *a, **k: decoded.append(1))
    for frame in (deflated(small), big):
        with pytest.raises(ProtocolError, match="compressed archive"):
            parse(frame)
    # an archive Python's zipfile cannot read is not counted whole: torch.load reads it its way
    with pytest.raises(ProtocolError, match="cannot be read"):
        parse(b"PK\x03\x04" + big[4:-8])
    assert decoded == []


def test_a_zip_after_pickles_is_not_read_for_the_pickle_s_size():
    """Found while fixing the above: torch.load reads what does not begin as an archive as
    pickles (torch.save's legacy format), while Python's zipfile finds an archive appended at
    the end; the appended one's 10-byte data.pkl was taken as the size of the pickles before.
    Since round 18 a message in the legacy format is refused whatever its size (torch.save
    writes archives; the judge reads their one pickle opcode by opcode before torch.load)."""
    buf = io.BytesIO()
    message = {"type": "reply", "trace": None, "value": list(range(MAX_PICKLE))}
    torch.save(message, buf, _use_new_zipfile_serialization=False)
    appended = io.BytesIO()
    with zipfile.ZipFile(appended, "w") as z:
        z.writestr("archive/data.pkl", b"x" * 10)
    with pytest.raises(ProtocolError, match="not an archive torch.save writes"):
        parse(buf.getvalue() + appended.getvalue())
    with pytest.raises(ProtocolError, match="KiB of plain data"):
        parse(encode(message))
    # ... and an archive after an archive: Python's zipfile reads the second's directory (just
    # before the end record), torch's reader the directory where the record says it is
    small = encode({"type": "reply", "trace": None, "value": [1]})
    with pytest.raises(ProtocolError, match="directory is not where it says"):
        parse(encode(message) + small)
    assert parse(small)["value"] == [1]


@NEEDS_BWRAP
def test_a_deflated_reply_fails_its_exercise_at_once_and_the_classmate_keeps_its_points():
    a, b = attacker_then_classmate(
        hostile("deflated_reply.py", lists=4 * MAX_PICKLE), "causal_mask", GOOD_MASK
    )
    assert not a.passed and "compressed archive" in a.message, a
    assert b.passed, b


# -- 6. queued signals -----------------------------------------------------------------------------
SIGQUEUE = (
    UNWATCH
    + """import ctypes, os, platform, resource, signal
NR = {"x86_64": 129, "aarch64": 138}[platform.machine()]  # rt_sigqueueinfo
def causal_mask(seq_len, device=None):
    _unwatch()
    libc = ctypes.CDLL(None, use_errno=True)
    sig = signal.SIGRTMIN + 3
    signal.pthread_sigmask(signal.SIG_BLOCK, [sig])
    info = (ctypes.c_int * 32)()
    info[0], info[2] = sig, -1  # si_signo, si_code = SI_QUEUE
    n, err = 0, 0
    while n < 1000:
        info[3], info[4], info[5] = os.getpid(), os.getuid(), n  # si_pid, si_uid, payload
        if libc.syscall(NR, os.getpid(), sig, info) != 0:
            err = ctypes.get_errno()
            break
        n += 1
    back = signal.sigtimedwait([sig], 0)
    limit = resource.getrlimit(resource.RLIMIT_SIGPENDING)
    raise RuntimeError(f"queued={n} ; errno={err} ; limit={limit[0]} ; back={back is not None} ;")
"""
)


@NEEDS_BWRAP
@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="syscall numbers")
def test_few_signals_can_be_queued():
    r = kept(SIGQUEUE)
    assert field(r, "back") == "True", r  # the probe works: it queued and read one back
    assert 0 < int(field(r, "queued")) <= PENDING_SIGNALS_LIMIT, r
    assert field(r, "errno") == "11", r  # EAGAIN: the limit, not a refusal of the call
    assert kept(GOOD_MASK).passed


# -- round 12, 1. a privately mapped file copied on write -------------------------------------
@NEEDS_BWRAP
def test_a_matrix_written_over_a_privately_mapped_file_counts_as_the_calls_memory():
    from autograder.core.judge import judge_source
    from tests.sandbox.test_round9 import HOSTILE

    [r] = judge_source((HOSTILE / "copies_a_mapped_file.py").read_text(), ["tiled_attention"])
    assert not r.passed and r.mistake == "materialises-full-matrix", r


# -- round 13, 2. two entries of one name, by case ---------------------------------------------
def test_an_archive_with_two_entries_of_one_name_by_case_is_refused(monkeypatch):
    small = encode({"type": "reply", "trace": None, "value": [1, 2, 3]})
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(small)) as src, zipfile.ZipFile(out, "w") as dst:
        for entry in src.infolist():
            dst.writestr(entry.filename, src.read(entry))
            if entry.filename.endswith("data.pkl"):
                dst.writestr(entry.filename[: -len("data.pkl")] + "DATA.PKL", b"\x80\x02]." * 9)
    decoded = []
    monkeypatch.setattr(torch, "load", lambda *a, **k: decoded.append(1))
    with pytest.raises(ProtocolError, match="two entries of one name"):
        parse(out.getvalue())
    assert decoded == []


# -- round 13, 1. file pages dropped, the matrix in shared anonymous memory ---------------------
@NEEDS_BWRAP
def test_a_matrix_in_shared_memory_after_dropped_file_pages_counts_as_the_calls_memory():
    from autograder.core.judge import judge_source
    from tests.sandbox.test_round9 import HOSTILE

    [r] = judge_source((HOSTILE / "drops_file_pages.py").read_text(), ["tiled_attention"])
    assert not r.passed and r.mistake == "materialises-full-matrix", r

"""The memory a learner call is measured by counts the learner's memory, not the machine's page
cache (trial 8: a correct ``tiled_attention`` failed ``materialises-full-matrix`` twice, "raised
the process's peak memory by 158 MiB", in the first minutes after ``make install``).

The exercise process maps all of torch's code before a measured call (``map_code``). The pages of
a library written minutes ago are still dirty in the page cache (not yet written back to disk),
and ``Private_Dirty`` counts a dirty page of a file that no other process maps: the server read up
to 190 MiB "held at the start" (against a 24 MiB allowance) where the process held 17. Keeping
``libtorch_cpu.so``'s pages dirty (rewriting a byte of each, unchanged) failed the correct file
every time; here a child maps a file whose pages are kept dirty the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox.inside import zygote
from autograder.sandbox.inside.procfs import _held
from autograder.sandbox.inside.zygote import PeakMemory

ROOT = Path(__file__).resolve().parents[2]
MiB = 1024  # in KiB, the unit of /proc
# a library's code the child maps, memory it wrote itself, a shared pool it wrote (MAP_SHARED)
FILE, ANON, POOL = 64 * MiB, 6 * MiB, 4 * MiB

CHILD = """
import mmap, sys
with open(sys.argv[1], "rb") as f:
    code = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
sum(code[i] for i in range(0, len(code), 4096))  # every page mapped, as map_code maps torch's
written = bytearray(b"x") * (int(sys.argv[2]) * 1024)
pool = mmap.mmap(-1, int(sys.argv[3]) * 1024)
pool.write(b"y" * len(pool))
print("ready", flush=True)
sys.stdin.read()
"""


def _fs_type(path: Path) -> str:
    """The type of the file system ``path`` lies on (the mount with the longest matching point)."""
    best, kind = "", ""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point, fstype = fields[4], fields[fields.index("-") + 1]
            inside = str(path) == point or str(path).startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, kind = point, fstype
    return kind


def _private_dirty(pid: int) -> int:
    with open(f"/proc/{pid}/smaps_rollup") as f:
        return int(next(line for line in f if line.startswith("Private_Dirty:")).split()[1])


def _dirty(fd: int, size: int) -> None:
    """Each page of the file dirty again (not mapped here: only the child maps it)."""
    for offset in range(0, size, 4096):
        os.pwrite(fd, os.pread(fd, 1, offset), offset)


@pytest.fixture
def library(tmp_path):
    """A file on a disk's file system (a tmpfs file is memory, which the measure counts)."""
    place = next((p for p in (tmp_path, ROOT) if _fs_type(p) not in ("tmpfs", "ramfs", "")), None)
    if place is None:
        pytest.skip("no disk-backed folder here to hold a file's pages dirty in the page cache")
    path = place / f"page-cache-{os.getpid()}.so"
    path.write_bytes(os.urandom(FILE * 1024))
    yield path
    path.unlink()


def test_dirty_page_cache_of_a_mapped_library_is_not_the_calls_memory(library, monkeypatch):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(library), str(ANON), str(POOL)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    fd = os.open(library, os.O_RDWR)
    try:
        assert child.stdout.readline() == "ready\n"
        for _attempt in range(5):  # the premise: the child's Private_Dirty shows the file's pages
            _dirty(fd, FILE * 1024)
            if _private_dirty(child.pid) > ANON + POOL + FILE * 0.9:
                break
        else:
            pytest.skip("this machine writes a file back to disk at once: its pages stay clean")
        private, shared = _held(child.pid)
        # what it wrote (its shared pool whole too, as before), not the file's dirty pages
        assert (ANON + POOL) * 0.95 < private < ANON + POOL + 8 * MiB, private
        assert POOL * 0.95 < shared < POOL + MiB, shared
        monkeypatch.setattr(zygote, "_learner_pids", lambda contained: {child.pid})
        peak = PeakMemory(contained=False)
        assert peak.start() == 0
        grew = peak.end()  # an idle call, what it held within the allowance: nothing
        assert 0 <= grew < 4 * MiB, grew
    finally:
        os.close(fd)
        child.kill()
        child.wait()

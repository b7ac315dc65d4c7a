"""Where the warm grader lives, what code it runs, and how its messages travel. No torch here.

- :func:`runtime_dir`: ``$AUTOGRADER_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/attention-autograder``,
  else ``<tempdir>/attention-autograder-<uid>``; created 0700, and refused (:class:`Unsafe`) when
  it is a link, not ours, or open to others.
- :func:`paths`: one socket, lock and log per checkout and interpreter in that folder.
- :func:`fingerprint`: the autograder's and course_lib's sources, torch's version and the
  interpreter's: when any changes, the running grader is stale.
- :func:`send` / :func:`receive`: a 4-byte length and a JSON object, with file descriptors
  (``SCM_RIGHTS``) attached to the first byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import struct
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.i18n import _

ROOT = Path(__file__).resolve().parents[2]  # the checkout: autograder/ and course_lib/
PROTOCOL = 1
ENV_DIR = "AUTOGRADER_RUNTIME_DIR"
MAX_MESSAGE = 64 * 2**20
MAX_FDS = 4  # a request: the connection and the caller's stdin, stdout, stderr
_LENGTH = struct.Struct(">I")


_IMPORTED = time.time()  # the latest this process can have been launched, without psutil
FRESH = 120.0  # seconds: a process this young was started for the command it runs


def _process_start() -> float:
    """When this process started (seconds since the epoch, to a clock tick): its start in
    /proc, since boot, against the boot clock (psutil's figure counts from a boot time rounded
    to the second, up to a second early)."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime
        since = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
        return time.time() - since
    except (OSError, ValueError, IndexError, AttributeError):  # no /proc: the import time
        return _IMPORTED


def launched(called: float | None = None) -> float:
    """When the person asked for the command this process runs (seconds since the epoch): the
    process's start when it is a fresh command (the interpreter's start-up is not their time),
    else (a longer-lived process: a kernel, the warm grader) ``called``, or now."""
    called = called or time.time()
    started = _process_start()
    return started if 0 <= called - started <= FRESH else called


class Unsafe(RuntimeError):
    """The runtime folder is not private to this user (the grader is not started there)."""


def runtime_dir() -> Path:
    """The private folder for the socket, lock and log; created 0700; :class:`Unsafe` unless it
    is a real folder (no link), owned by this user, with no access for group or others."""
    if os.environ.get(ENV_DIR):
        folder = Path(os.environ[ENV_DIR])
    elif os.environ.get("XDG_RUNTIME_DIR"):
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "attention-autograder"
    else:
        folder = Path(tempfile.gettempdir()) / f"attention-autograder-{os.getuid()}"
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        said = _("cannot create {folder} ({problem})")
        raise Unsafe(said.format(folder=folder, problem=e.strerror)) from None
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise Unsafe(_("{folder} is not a folder (a link?); remove it").format(folder=folder))
    if info.st_uid != os.getuid():
        said = _("{folder} belongs to uid {owner}, not to you (uid {you})")
        raise Unsafe(said.format(folder=folder, owner=info.st_uid, you=os.getuid()))
    if info.st_mode & 0o077:
        said = _("{folder} is open to other users (mode {mode}); `chmod 700 {folder}` or remove it")
        raise Unsafe(said.format(folder=folder, mode=f"{stat.S_IMODE(info.st_mode):o}"))
    return folder


@dataclass(frozen=True)
class Paths:
    socket: Path
    lock: Path
    log: Path


def paths(folder: Path) -> Paths:
    """The socket, lock and log of this checkout's grader, for this environment (venv)."""
    key = hashlib.sha256(f"{ROOT}\0{sys.prefix}".encode()).hexdigest()[:12]
    return Paths(*(folder / f"grader-{key}.{ext}" for ext in ("sock", "lock", "log")))


def _torch_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "none"


def _answer_files() -> list[Path]:
    """Every file a warm grader reads once and keeps: the sources of ``autograder`` and
    ``course_lib``, the compiled translations, and the lesson notebooks whose sections feedback
    cites (``autograder/grade/outputs/sections.py``)."""
    files = [p for package in ("autograder", "course_lib") for p in (ROOT / package).rglob("*.py")]
    files += (ROOT / "autograder" / "locale").rglob("*.mo")
    for folder in ("notebooks", "solutions", "zh-CN/notebooks", "zh-CN/solutions"):
        files += (ROOT / folder).glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb")
    return sorted(files)


def fingerprint() -> str:
    """What the grader's answers depend on: the files of :func:`_answer_files`, torch's version,
    and the interpreter."""
    digest = hashlib.sha256(f"{PROTOCOL}\0{sys.version}\0{sys.prefix}\0".encode())
    digest.update(_torch_version().encode())
    for path in _answer_files():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()[:16]


class Closed(ConnectionError):
    """The other side closed the connection before a whole message came."""


def send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode()
    frame = _LENGTH.pack(len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [frame[:1]], list(fds))
        frame = frame[sent:]
    sock.sendall(frame)


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise Closed("the connection closed mid-message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(sock: socket.socket, with_fds: bool = False) -> tuple[dict, list[int]]:
    """One message (and the descriptors sent with it: the caller owns and closes them)."""
    first, fds, flags, _address = socket.recv_fds(sock, 1, MAX_FDS if with_fds else 0)
    if not first:
        for fd in fds:
            os.close(fd)
        raise Closed("the connection closed")
    try:
        if flags & socket.MSG_CTRUNC:
            raise ValueError("too many file descriptors")
        (size,) = _LENGTH.unpack(first + _exactly(sock, _LENGTH.size - 1))
        if size > MAX_MESSAGE:
            raise ValueError(f"a message of {size} bytes")
        message = json.loads(_exactly(sock, size))
        if not isinstance(message, dict):
            raise ValueError("not an object")
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return message, fds


def peer_uid(sock: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket (``SO_PEERCRED``)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid

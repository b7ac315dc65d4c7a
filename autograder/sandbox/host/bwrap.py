"""How a sandbox is started: the bubblewrap command, what it mounts, and as which user.

The sandbox's filesystem is read-only and holds only ``/usr``, the Python installation, the
installed packages (under ``/sandbox/packages``), the sandbox's own modules (:data:`SANDBOX_FILES`)
and the course's helper modules, a minimal ``/dev``, plus two tmpfs capped in bytes and inodes
(``/tmp``, ``/dev/shm``: :data:`~autograder.sandbox.protocol.TMPFS`): never the course's reference,
the checks, the solutions, the tests or anybody's submission. See SECURITY.md.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import Any

from autograder.contract import REFERENCE_MODULES
from autograder.sandbox.host import seccomp
from autograder.sandbox.protocol import DEVICES, NOBODY, TMPFS, readable_by_others

TMPFS_SIZE = TMPFS["/tmp"][0]  # the sandbox's working place (with /dev/shm, its only writable one)

PACKAGE = Path(__file__).resolve().parents[2]  # autograder/
ROOT = PACKAGE.parent
INSIDE = PACKAGE / "sandbox" / "inside"
# What the sandbox holds of this repository: the one folder of code that runs inside
# (autograder/sandbox/inside/), the protocol both sides speak, the two package markers above them
# (docstrings only), and the course's helpers (the lessons' set-up cells import them). Nothing
# else: no reference, no checks, no tests, no host-side module.
SANDBOX_FILES = {
    "autograder/__init__.py": PACKAGE / "__init__.py",
    "autograder/sandbox/__init__.py": PACKAGE / "sandbox" / "__init__.py",
    "autograder/sandbox/protocol.py": PACKAGE / "sandbox" / "protocol.py",
    **{f"autograder/sandbox/inside/{path.name}": path for path in sorted(INSIDE.glob("*.py"))},
    "course_lib/__init__.py": INSIDE / "course_lib_stub.py",
    # Every course_lib module that holds no exercise's reference: the helpers (data, viz...).
    **{
        f"course_lib/{path.name}": path
        for path in sorted((ROOT / "course_lib").glob("*.py"))
        if path.stem != "__init__" and f"course_lib.{path.stem}" not in REFERENCE_MODULES
    },
}

_probe: dict[str, Any] = {}
_probe_lock = threading.Lock()
_staged: dict[str, str] = {}  # private folder -> where the sandbox's user finds it (launch)
_stage_lock = threading.Lock()


class NotReadable(RuntimeError):
    """The judge runs as root, and the sandbox's user (nobody) cannot read what it needs."""


def _own_folder(name: str) -> str:
    """``/tmp/<name>``: a folder of this user's, readable by others, that nobody else can change,
    made once and shared by every judge of this user (nothing left behind per run). Where
    another user holds the name (or it is not a plain folder), a private one, removed at exit."""
    path = os.path.join(tempfile.gettempdir(), name)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o755)
    st = os.lstat(path)
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022:
        os.chmod(path, 0o755)  # (the umask may have taken some of it)
        return path
    path = tempfile.mkdtemp(prefix=f"{name}-")
    os.chmod(path, 0o755)
    atexit.register(shutil.rmtree, path, True)
    return path


def _font_cache() -> str | None:
    """A readable copy of matplotlib's font list (the judge's own), so that each sandbox does not
    rebuild it (seconds of CPU): the server copies it into its tmpfs before importing matplotlib.
    One copy per user and content (``/tmp/autograder-fonts-<uid>/<digest>``), made atomically
    (a rename), shared by every later judge."""
    if "fonts" not in _probe:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        source = os.environ.get("MPLCONFIGDIR") or os.path.join(home, "matplotlib")
        found = sorted(Path(source).glob("fontlist-*.json")) if os.path.isdir(source) else []
        copy = None
        if found:
            contents = {f.name: f.read_bytes() for f in found}
            digest = hashlib.sha256(repr(sorted(contents.items())).encode()).hexdigest()[:16]
            top = _own_folder(f"autograder-fonts-{os.geteuid()}")
            copy = os.path.join(top, digest)
            if not os.path.isdir(copy):
                making = tempfile.mkdtemp(prefix=".making-", dir=top)
                for name, data in contents.items():
                    with open(os.path.join(making, name), "wb") as f:
                        f.write(data)
                    os.chmod(os.path.join(making, name), 0o644)
                os.chmod(making, 0o755)
                try:
                    os.rename(making, copy)
                except OSError:  # another judge made it first: the same content
                    shutil.rmtree(making, ignore_errors=True)
        _probe["fonts"] = copy
    return _probe["fonts"]


def _own_mode_readable(path: str) -> bool:
    """Can an unprivileged user read ``path`` itself, once handed it (a folder above may be
    private: the sandbox mounts it from an fd the judge opened)?"""
    try:
        return bool(os.stat(path).st_mode & 0o004)
    except OSError:
        return False


def _ro_bind(src: str, dest: str) -> list[str]:
    """bubblewrap's arguments that mount the folder ``src`` read-only on ``dest``. Where the judge
    is root and a folder above ``src`` is private (a course under /root, a clone in
    ``mktemp -d``), the sandbox's user could not reach it: bubblewrap mounts it from a public
    staging folder instead, where :func:`launch` binds it first, in a mount namespace of the
    sandbox's own (the host's mounts are untouched)."""
    if os.geteuid() != 0 or readable_by_others(src) or not os.path.isdir(src):
        return ["--ro-bind", src, dest]
    with _stage_lock:
        if src not in _staged:
            if "stage" not in _probe:  # empty mount points, one folder per user, kept
                _probe["stage"] = _own_folder(f"autograder-stage-{os.geteuid()}")
            _staged[src] = os.path.join(_probe["stage"], str(len(_staged)))
            with contextlib.suppress(FileExistsError):  # (made by an earlier judge)
                os.mkdir(_staged[src], 0o755)
        return ["--ro-bind", _staged[src], dest]


def _host_paths_in(lib: str) -> list[str]:
    """Files of a package folder that name the host's checkout (an editable install's finder and
    ``.pth``, a ``direct_url.json``): the sandbox sees them empty."""
    found = []
    with contextlib.suppress(OSError):
        for name in sorted(os.listdir(lib)):
            path = os.path.join(lib, name)
            if name.startswith("__editable__") or name.endswith((".pth", ".egg-link")):
                found.append(name)
            elif name.endswith(".dist-info") and os.path.isfile(f"{path}/direct_url.json"):
                found.append(f"{name}/direct_url.json")
    return found


def _libraries() -> list[str]:
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(os.path.realpath(paths[k]) for k in ("purelib", "platlib")))


def _library_mounts() -> dict[str, str]:
    """Where the sandbox sees each folder of installed packages: under /sandbox, never at its own
    path, which may lie under /tmp (a checkout's venv in /tmp), where the sandbox's tmpfs is."""
    return {lib: f"/sandbox/packages/{i}" for i, lib in enumerate(_libraries())}


def _interpreter() -> tuple[str, list[str], int | None]:
    """The Python the sandbox runs, the folders it needs, and the host user to run it as.

    Learner code runs as uid 65534 inside the sandbox in every case. Outside it, the sandbox runs
    as the judge's own user, or, when the judge is root, as ``nobody`` too (a process-count limit
    means nothing for root): what lies under a private folder (a course under /root, a clone in
    ``mktemp -d``) is mounted from an fd the judge opens (:func:`_ro_bind`), so only the files
    themselves must be readable by others. Where they are not, :class:`NotReadable` says which
    and how to fix it: the sandbox never runs as root outside.
    """
    base = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    libs = _libraries()
    prefix = os.path.realpath(sys.base_prefix)
    if os.geteuid() != 0:
        return base, [prefix, *libs], None
    needed = [base, sysconfig.get_paths()["stdlib"], *libs]
    private = [p for p in needed if not _own_mode_readable(p)]
    if not private:
        return base, [prefix, *libs], NOBODY
    system = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    if os.path.exists(system) and all(map(_own_mode_readable, [system, *libs])):
        return system, libs, NOBODY
    raise NotReadable(
        f"grading runs as root, and the sandbox's user (nobody, uid 65534) cannot read "
        f"{private[0]} (mode {os.stat(private[0]).st_mode & 0o777:o}). Make it readable "
        f"(chmod -R o+rX {private[0]}) or install the course and its Python where others may "
        "read them; the sandbox never runs learner code as root"
    )


def _bwrap_command(python: str, folders: list[str], boot: str) -> list[str]:
    cmd = [
        "bwrap",
        "--unshare-all",  # user, pid, network, IPC, UTS and cgroup namespaces
        # (not --disable-userns: it puts the sandbox in a nested user namespace, where the server
        # could not cap its tmpfs' inodes; the seccomp filter refuses new namespaces instead)
        # the server is the sandbox's pid 1, not bubblewrap's init (a process of the learner's uid,
        # dumpable: learner code could trace it and make it run its own program): non-dumpable,
        # it cannot be traced, and as init, not killed, from inside; it reaps orphans itself
        "--as-pid-1",
        "--die-with-parent",
        "--new-session",
        "--uid", str(NOBODY), "--gid", str(NOBODY),
        "--hostname", "sandbox",
        "--cap-drop", "ALL",
        "--ro-bind", "/usr", "/usr",
    ]  # fmt: skip
    for top in ("lib", "lib64", "lib32", "bin", "sbin"):
        host = Path("/") / top
        if host.is_symlink():
            cmd += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            cmd += ["--ro-bind", str(host), str(host)]
    cmd += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    mounts = _library_mounts()
    for folder in dict.fromkeys(folders):
        if folder in mounts:
            cmd += _ro_bind(folder, mounts[folder])
            for name in _host_paths_in(folder):
                cmd += ["--ro-bind", "/dev/null", f"{mounts[folder]}/{name}"]
        elif not folder.startswith("/usr/"):
            cmd += _ro_bind(folder, folder)
    for dest, src in SANDBOX_FILES.items():  # copies (launch): no host path in the mount table
        cmd += ["--perms", "0444", "--file", str(src), f"/sandbox/{dest}"]
    fonts = _font_cache()
    if fonts:
        cmd += ["--ro-bind", fonts, "/sandbox/fonts"]
    cmd += ["--proc", "/proc", "--size", str(2**20), "--tmpfs", "/dev"]  # a minimal /dev:
    for name in DEVICES:  # read-write binds: the server makes them read-only, not nodev (seal)
        cmd += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        cmd += ["--symlink", f"/proc/self/fd/{i}", f"/dev/{name}"]
    cmd += ["--symlink", "/proc/self/fd", "/dev/fd"]
    for place, (size, _) in TMPFS.items():  # the server adds each one's inode cap; the mode
        # (a remount cannot set a tmpfs's mode: seal's mode= is ignored) is bubblewrap's to give
        cmd += ["--perms", "1777", "--size", str(size), "--tmpfs", place]
    cmd += [
        "--remount-ro", "/dev",
        "--remount-ro", "/",
        # for the server to cap the tmpfs' inodes, then drop every capability, the bounding set
        # too (seal), before anything else runs
        "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP",
        "--clearenv",
        "--setenv", "HOME", "/tmp",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "MPLBACKEND", "Agg",
        "--setenv", "MPLCONFIGDIR", "/tmp/.matplotlib",
        "--setenv", "OMP_NUM_THREADS", "1",
        "--chdir", "/tmp",
        "--",
        python, "-I", "-S", "-B", "-c", boot,
    ]  # fmt: skip
    return cmd


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("bwrap", 0)  # close-on-exec: passed by pass_fds only
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def launch(cmd: list[str], user: int | None = None) -> tuple[list[str], list[int], int | None]:
    """How to start ``cmd`` (from :func:`_bwrap_command`) as ``user``: ``bwrap --args N``, its
    options read from a memory file, so that the sandbox's bubblewrap shows no mount in
    its ``/proc/<pid>/cmdline``, only the command after ``--``; each ``--file`` read into a memory
    file (the sandbox's own modules are copies: no path of the checkout, nothing a private folder
    hides); with the System V IPC filter.

    Where ``cmd`` mounts a staged folder (:func:`_ro_bind`), the judge (root) binds each private
    folder there in a new mount namespace (``unshare``), then becomes ``user`` (``setpriv``) and
    runs bubblewrap. Returns the command, the fds to pass (the caller closes them once it has
    started) and the user to start the command as."""
    own = []
    end = cmd.index("--")  # bubblewrap reads only its options from the file
    args, command = cmd[1:end], cmd[end:]
    for i, arg in enumerate(cmd[:end]):
        if arg == "--file":  # _bwrap_command names the file to copy: bubblewrap reads it from an fd
            with open(cmd[i + 1], "rb") as f:
                own.append(_memfd(f.read()))
            args[i] = str(own[-1])
    rules = seccomp.program()
    if rules is not None:
        own.append(_memfd(rules))
        args = ["--seccomp", str(own[-1]), *args]
    own.append(_memfd(b"".join(a.encode() + b"\0" for a in args)))
    argv = [shutil.which("bwrap") or "bwrap", "--args", str(own[-1]), *command]
    with _stage_lock:
        staged = [(src, at) for src, at in _staged.items() if at in args]
    if staged and user is not None:
        binds = "".join(f'mount --bind "${2 * i + 1}" "${2 * i + 2}"; ' for i in range(len(staged)))
        become = f"setpriv --reuid={user} --regid={user} --clear-groups --"
        script = f'set -e; {binds}shift {2 * len(staged)}; exec {become} env -i "$@"'
        argv = [
            "unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh",
            *[p for pair in staged for p in pair], *argv,
        ]  # fmt: skip
        user = None
    return argv, own, user


# What the sandbox's bubblewrap is started with: no environment of the judge's (its pid 1 could
# read it), the root folder as its working one (not the checkout).
LAUNCH = {"env": {}, "cwd": "/"}


def _boot(code: str, sandbox: str = "/sandbox", libraries: list[str] | None = None) -> str:
    """The sandbox's ``python -c``: its own modules and the installed packages, nothing else."""
    path = [sandbox, *(_libraries() if libraries is None else libraries)]
    return f"import sys; sys.path[:0] = {path!r}\n{code}"


def _strong_boot(code: str) -> str:
    """``_boot`` inside bubblewrap, where the packages are mounted under /sandbox."""
    return _boot(code, libraries=list(_library_mounts().values()))


def _as_user(user: int | None) -> dict:
    """``subprocess`` arguments that start the sandbox as ``user`` (None: as ourselves)."""
    return {} if user is None else {"user": user, "group": user, "extra_groups": []}


def strong_isolation_available() -> bool:
    """Can learner code run in the OS-level sandbox (bubblewrap) here? Probed once (a second
    thread asking meanwhile waits for that answer)."""
    with _probe_lock:
        return _strong_isolation_available()


def why_unavailable() -> str:
    """Why the strong sandbox cannot run here, as the probe found it (after
    :func:`strong_isolation_available` said False)."""
    with _probe_lock:
        return _probe.get("why") or "bubblewrap failed to start"


def unprobed() -> bool:
    """Is bubblewrap installed here, but not yet probed?"""
    with _probe_lock:
        return "strong" not in _probe and bool(shutil.which("bwrap")) and sys.platform == "linux"


def proven() -> None:
    """A sandbox started without the probe became ready: bubblewrap works here."""
    with _probe_lock:
        _probe.setdefault("strong", True)


def _strong_isolation_available() -> bool:
    if "strong" not in _probe:
        ok = False
        if shutil.which("bwrap") and sys.platform.startswith("linux"):
            # numpy: the installed packages must be there too, not only the sandbox's modules;
            # seal: the tmpfs' inode caps, every capability dropped
            boot = _strong_boot(
                "from autograder.sandbox.inside.zygote import seal; seal(); import numpy"
            )
            try:
                python, folders, user = _interpreter()
                argv, fds, user = launch(_bwrap_command(python, folders, boot), user)
                try:
                    proc = subprocess.run(
                        argv, capture_output=True, timeout=120, pass_fds=fds, **LAUNCH,
                        **_as_user(user),
                    )  # fmt: skip
                finally:
                    for fd in fds:
                        os.close(fd)
                ok = proc.returncode == 0
                _probe["why"] = proc.stderr.decode(errors="replace").strip()[-300:]
            except NotReadable as e:
                _probe["why"] = str(e)
            except (OSError, subprocess.SubprocessError) as e:
                _probe["why"] = str(e)
        else:
            _probe["why"] = "bubblewrap (bwrap) is not installed"
        _probe["strong"] = ok
    return _probe["strong"]


WEAK_NOTE = (
    "note: the grader's OS-level sandbox (bubblewrap) is not available here ({why}); your code "
    "runs in a separate process only. That is fine for checking your own work; an instructor "
    "grading a class needs bubblewrap (Linux: apt-get install bubblewrap)."
)
_noted = False


def _note_weak() -> None:
    global _noted
    if not _noted:
        _noted = True
        print(WEAK_NOTE.format(why=_probe.get("why") or "unknown reason"), file=sys.stderr)


def note_weak_again() -> None:
    """Say the weak-sandbox note again (the warm grader: once per request, as each process
    running the command line on its own would)."""
    global _noted
    _noted = False
    _note_weak()

"""How a sandbox is started: the bubblewrap command, what it mounts, and as which user.

The sandbox's filesystem is read-only and holds only ``/usr``, the Python installation, the
installed packages (under ``/sandbox/packages``), the sandbox's own modules (:data:`SANDBOX_FILES`)
and the course's helper modules, plus a size-capped tmpfs at ``/tmp``: never the course's
reference, the checks, the solutions, the tests or anybody's submission. See SECURITY.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import Any

from autograder.contract import REFERENCE_MODULES
from autograder.sandbox.protocol import NOBODY, readable_by_others

TMPFS_SIZE = 64 * 2**20  # the sandbox's only writable place

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


def _font_cache() -> str | None:
    """A readable copy of matplotlib's font list (the judge's own), so that each sandbox does not
    rebuild it (seconds of CPU): the server copies it into its tmpfs before importing matplotlib."""
    if "fonts" not in _probe:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        source = os.environ.get("MPLCONFIGDIR") or os.path.join(home, "matplotlib")
        found = sorted(Path(source).glob("fontlist-*.json")) if os.path.isdir(source) else []
        copy = None
        if found:
            copy = tempfile.mkdtemp(prefix="autograder-fonts-")
            os.chmod(copy, 0o755)
            for f in found:
                shutil.copyfile(f, os.path.join(copy, f.name))
                os.chmod(os.path.join(copy, f.name), 0o644)
        _probe["fonts"] = copy
    return _probe["fonts"]


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
    as the judge's own user, or, when the judge is root, as ``nobody`` too where the interpreter
    and the packages are readable by it (a process-count limit means nothing for root): if this
    Python lives under a private folder (pyenv under /root), the system's Python of the same
    version serves, with the same packages.
    """
    base = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    libs = _libraries()
    prefix = os.path.realpath(sys.base_prefix)
    if os.geteuid() != 0:
        return base, [prefix, *libs], None
    if all(map(readable_by_others, [base, sysconfig.get_paths()["stdlib"], *libs])):
        return base, [prefix, *libs], NOBODY
    system = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    if os.path.exists(system) and all(map(readable_by_others, [system, *libs])):
        return system, libs, NOBODY
    return base, [prefix, *libs], None


def _bwrap_command(python: str, folders: list[str], boot: str) -> list[str]:
    cmd = [
        "bwrap",
        "--unshare-all",  # user, pid, network, IPC, UTS and cgroup namespaces
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
            cmd += ["--ro-bind", folder, mounts[folder]]
        elif not folder.startswith("/usr/"):
            cmd += ["--ro-bind", folder, folder]
    for dest, src in SANDBOX_FILES.items():
        cmd += ["--ro-bind", str(src), f"/sandbox/{dest}"]
    fonts = _font_cache()
    if fonts:
        cmd += ["--ro-bind", fonts, "/sandbox/fonts"]
    cmd += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(TMPFS_SIZE), "--tmpfs", "/tmp",
        "--remount-ro", "/",
        "--clearenv",
        "--setenv", "HOME", "/tmp",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "MPLBACKEND", "Agg",
        "--setenv", "MPLCONFIGDIR", "/tmp/.matplotlib",
        "--setenv", "OMP_NUM_THREADS", "1",
        "--chdir", "/tmp",
        python, "-I", "-S", "-B", "-c", boot,
    ]  # fmt: skip
    return cmd


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
            python, folders, user = _interpreter()
            # numpy: the installed packages must be there too, not only the sandbox's modules
            cmd = _bwrap_command(
                python, folders, _strong_boot("import autograder.sandbox.protocol, numpy")
            )
            try:
                proc = subprocess.run(cmd, capture_output=True, timeout=120, **_as_user(user))
                ok = proc.returncode == 0
                _probe["why"] = proc.stderr.decode(errors="replace").strip()[-300:]
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

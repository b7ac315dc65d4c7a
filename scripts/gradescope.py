"""Build the ``autograder.zip`` that Gradescope's autograder runs, for one assignment.

    python scripts/gradescope.py 04_softmax_masks          # -> grades/gradescope/04_softmax_masks/
    make gradescope ASSIGNMENT=04_softmax_masks             # the same
    make gradescope ASSIGNMENT=04_softmax_masks LANG=zh-CN  # the Chinese edition's (zh-CN/grades/)

Gradescope's specification (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
the zip holds ``setup.sh`` (run once, as root, when Gradescope builds the image) and
``run_autograder`` (run for each submission, in a fresh container, with the student's files in
``/autograder/submission``; it must write ``/autograder/results/results.json``); Gradescope
unzips it into ``/autograder/source``. Here:

- ``setup.sh`` installs Python, bubblewrap, and in a venv (``/autograder/venv``) the course's
  pinned requirements, torch from PyTorch's CPU index (no multi-GB CUDA build), then the course;
- ``run_autograder`` runs ``python -m autograder.grade.gradescope ASSIGNMENT`` (the course's grader,
  :mod:`autograder.grade.gradescope`), with its root from ``$AUTOGRADER_ROOT`` (``/autograder``);
- ``source/`` is what the grader needs: ``autograder/``, ``course_lib/``, ``pyproject.toml``,
  ``README.md``, ``requirements.txt`` and the assignment's released notebook (never ``solutions/``).

``--lang zh-CN`` (``make gradescope LANG=zh-CN``, the edition choice of the other targets) makes
the Chinese edition's bundle: the notebook released in ``zh-CN/notebooks/`` (in the zip's
``notebooks/``, where the grader reads a lesson's order), and a ``run_autograder`` that grades in
Chinese (``AUTOGRADER_LANG``), so that results.json speaks it; ``setup.sh`` compiles the
catalogs (``autograder/locale``, not kept in git).

Choose Gradescope's Ubuntu 22.04 or 24.04 base image (Python 3.10 or later).
"""

from __future__ import annotations

import argparse
import re
import stat
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("autograder", "course_lib")
FILES = ("pyproject.toml", "requirements.txt", "README.md")  # pyproject names the README
# Pinned packages the grader never uses on Gradescope (the lab, the browser tests, the linters,
# the cluster): left out of the image.
NOT_NEEDED = {"jupyterlab", "playwright", "pytest", "pytest-xdist", "ruff", "dask", "distributed"}
TORCH_CPU = "https://download.pytorch.org/whl/cpu"
# The course's editions (scripts/release.py's): each one's released notebooks
EDITIONS = {"en": ROOT / "notebooks", "zh-CN": ROOT / "zh-CN" / "notebooks"}

SETUP = """#!/usr/bin/env bash
# Run once by Gradescope, as root, when it builds the autograder's image.
set -euxo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap
python3 -m venv /autograder/venv
/autograder/venv/bin/python -m pip install --upgrade pip
/autograder/venv/bin/python -m pip install --index-url {torch_index} "{torch}"
/autograder/venv/bin/python -m pip install -r /autograder/source/requirements-gradescope.txt
/autograder/venv/bin/python -m pip install --no-deps -e /autograder/source
/autograder/venv/bin/pybabel compile -d /autograder/source/autograder/locale -D autograder
"""

RUN = """#!/usr/bin/env bash
# Run by Gradescope for each submission, in a fresh container: grades the notebook in
# $AUTOGRADER_ROOT/submission as {assignment}, writes $AUTOGRADER_ROOT/results/results.json.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}}"
export AUTOGRADER_ROOT="$ROOT" AUTOGRADER_LANG={lang} MPLBACKEND=Agg
cd "$ROOT/source"
exec "$PYTHON" -m autograder.grade.gradescope {assignment}
"""


def requirements() -> tuple[str, str]:
    """(torch's pin, the other pinned requirements the grader needs)."""
    torch, kept = "", []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name = re.split(r"[=<>!~\[ ;]", line.strip(), maxsplit=1)[0].lower()
        if not name or line.lstrip().startswith("#") or name in NOT_NEEDED:
            continue
        if name == "torch":
            torch = line.strip()
        else:
            kept.append(line.strip())
    return torch, "\n".join(kept) + "\n"


def _add(zf: zipfile.ZipFile, name: str, data: bytes | str, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # the same bytes every build
    mode = 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def build(assignment: str, out: Path, lang: str = "en") -> Path:
    """``out/<assignment>/autograder.zip``, of the edition ``lang`` (``en`` or ``zh-CN``)."""
    notebooks = EDITIONS[lang]
    release = notebooks / assignment
    if not release.is_dir():
        known = sorted(p.name for p in notebooks.iterdir() if p.is_dir())
        raise SystemExit(f"error: {assignment!r} is not an assignment: one of {', '.join(known)}")
    torch, others = requirements()
    target = out / assignment / "autograder.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w") as zf:
        _add(zf, "setup.sh", SETUP.format(torch_index=TORCH_CPU, torch=torch), executable=True)
        _add(zf, "run_autograder", RUN.format(assignment=assignment, lang=lang), executable=True)
        _add(zf, "requirements-gradescope.txt", others)
        for name in FILES:
            _add(zf, name, (ROOT / name).read_bytes())
        for package in PACKAGES:
            for path in sorted((ROOT / package).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                    _add(zf, path.relative_to(ROOT).as_posix(), path.read_bytes())
        for path in sorted(release.iterdir()):  # where the grader reads it: notebooks/
            if path.is_file():
                _add(zf, f"notebooks/{assignment}/{path.name}", path.read_bytes())
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignment", help="e.g. 04_softmax_masks")
    parser.add_argument(
        "--lang", choices=list(EDITIONS), default="en", help="the edition (default: en)"
    )
    parser.add_argument("--out", type=Path, help="default: grades/gradescope (zh-CN/grades/...)")
    args = parser.parse_args(argv)
    out = args.out or (EDITIONS[args.lang].parent / "grades" / "gradescope")
    target = build(args.assignment, out, args.lang)
    print(f"{target}: upload it as the autograder of {args.assignment} on Gradescope")
    return 0


if __name__ == "__main__":
    sys.exit(main())

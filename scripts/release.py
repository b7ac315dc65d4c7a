"""Regenerate the learners' notebooks/ from the instructor sources in solutions/, with nbgrader.

    python scripts/release.py            # strip outputs from solutions/, rewrite notebooks/
    python scripts/release.py --check    # exit 1 if notebooks/ is not what a release makes now
    python scripts/release.py --course   # and make the repo root a course (`make release`)

Every edition of the course is released the same way: the English one (``solutions/`` ->
``notebooks/``, the course folder is the repo root) and the Simplified Chinese one
(``zh-CN/solutions/`` -> ``zh-CN/notebooks/``, the course folder is ``zh-CN/``, with its own
``nbgrader_config.py`` that loads the root's and sets its own course id). ``--lang zh-CN``
releases one edition only. An edition releases the lessons it has (the Chinese edition may lag
behind while it is translated; tests/test_zh_edition.py lists what it lacks).

A release runs the real ``nbgrader generate_assignment`` (solution regions become
``raise NotImplementedError()``, graded test cells are locked and checksummed, outputs are
cleared) in a throwaway course folder with a throwaway gradebook, so it never touches a live
class's ``gradebook.db``. It loads the repo's ``nbgrader_config.py``, as a live class does.

notebooks/<assignment>/ is then replaced as a whole by the release, so a file deleted or renamed
in solutions/ disappears from notebooks/ too. notebooks/ is never edited by hand.

A release also rewrites the lesson table of ``README.md`` (between its ``<!-- lessons``
markers): each lesson's title, from its notebook's first heading, and the exercises
``autograder/contract.py`` gives it; ``--check`` exits 1 when the table is stale.

``--course`` then runs ``nbgrader generate_assignment`` once more, in the repo root, which
``nbgrader_config.py`` makes the course folder: the assignments, their notebooks and grade cells
go into the course's own gradebook (``gradebook.db`` unless the config names another database),
and ``release/`` holds what learners get, for ``nbgrader release_assignment``. It does not release
to nbgrader's exchange (that needs the exchange folder of a JupyterHub: see the README, "For
instructors"). nbgrader itself refuses to change an assignment that already has submissions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
CONFIG = ROOT / "nbgrader_config.py"
README = ROOT / "README.md"
TABLE = (
    "<!-- lessons: written by scripts/release.py; edit the notebooks' titles or the contract -->",
    "<!-- end of lessons -->",
)


class Edition(NamedTuple):
    """One language of the course: an nbgrader course folder with solutions/ and notebooks/.

    (A NamedTuple, not a dataclass: the tests load this script by path, outside sys.modules.)"""

    lang: str
    root: Path

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def notebooks(self) -> Path:
        return self.root / "notebooks"

    def __str__(self) -> str:
        return f"{self.notebooks.relative_to(ROOT)}/"


ENGLISH = Edition("en", ROOT)
EDITIONS = (ENGLISH, Edition("zh-CN", ROOT / "zh-CN"))
# Files that never travel from solutions/ to a release (nbgrader_config.py's ignore list says the
# same to nbgrader; this one also keeps them out of the throwaway course folder).
IGNORED = (".ipynb_checkpoints", "__pycache__", "*.pyc", ".*", "*.log", "*.db", "feedback")
# Cell metadata that changes what a learner gets (the rest is editor state: collapsed, scrolled...).
CELL_KEYS = ("nbgrader", "editable", "deletable")


class ReleaseError(Exception):
    pass


def nbgrader_env() -> dict[str, str]:
    """The environment nbgrader needs: this Python's ``bin`` first on PATH (it runs ``alembic``
    and the ``python3`` kernel by name)."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def nbgrader(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``nbgrader ARGS`` in ``cwd``; raise with its log when it fails."""
    command = [str(Path(sys.executable).parent / "nbgrader"), *args]
    done = subprocess.run(command, cwd=cwd, env=nbgrader_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise ReleaseError(
            f"`nbgrader {' '.join(args)}` failed (exit {done.returncode}):\n{done.stdout}"
            f"{done.stderr}"
        )
    return done


def assignments(solutions: Path = SOLUTIONS) -> list[str]:
    """Every folder of ``solutions`` that holds a notebook, in lesson order."""
    if not solutions.is_dir():
        return []
    return sorted(
        p.name
        for p in solutions.iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and any(p.glob("*.ipynb"))
    )


def make_course(root: Path, names: list[str], solutions: Path = SOLUTIONS) -> Path:
    """A throwaway nbgrader course folder in ``root``: the config and a copy of ``solutions``.

    The config is the English course's for every edition: an edition's own config only loads it
    and names its course, which a release does not use."""
    shutil.copy(CONFIG, root / "nbgrader_config.py")
    for name in names:
        shutil.copytree(
            solutions / name, root / "solutions" / name, ignore=shutil.ignore_patterns(*IGNORED)
        )
    return root


def course_args(root: Path) -> list[str]:
    """Command-line settings that pin every nbgrader path and the gradebook inside ``root``."""
    return [
        f"--CourseDirectory.root={root}",
        "--CourseDirectory.source_directory=solutions",
        "--CourseDirectory.release_directory=release",
        f"--db=sqlite:///{root / 'gradebook.db'}",
    ]


def generate(root: Path, names: list[str] | None = None, solutions: Path = SOLUTIONS) -> Path:
    """Release ``names`` (default: all) of ``solutions`` into ``root/release`` and return that
    folder.

    ``root`` becomes an nbgrader course folder; its gradebook then knows the assignments (which
    ``nbgrader autograde`` needs).
    """
    names = assignments(solutions) if names is None else names
    if not names:
        raise ReleaseError(f"no assignment in {solutions} (a folder with a notebook)")
    make_course(root, names, solutions)
    nbgrader(["generate_assignment", "*", "--force", *course_args(root)], cwd=root)
    release = root / "release"
    missing = [n for n in names if not (release / n).is_dir()]
    if missing:
        raise ReleaseError(f"nbgrader released nothing for {', '.join(missing)}")
    return release


def generate_course(
    root: Path = ROOT, names: list[str] | None = None, notebooks: Path = NOTEBOOKS
) -> Path:
    """Generate ``names`` (default: all) in the course folder ``root`` (the repo root, or
    ``zh-CN/``), with its own config and gradebook, and return its ``release/`` folder, which must
    agree with the edition's ``notebooks``."""
    every = assignments(root / "solutions")
    names = every if names is None else names
    for name in ["*"] if names == every else names:  # one nbgrader run for the whole course
        nbgrader(["generate_assignment", name, "--force", f"--CourseDirectory.root={root}"], root)
    release = root / "release"
    problems = [p for name in names for p in differences(release / name, notebooks / name)]
    if problems:
        raise ReleaseError("release/ and notebooks/ differ:\n  " + "\n  ".join(problems))
    return release


# -- comparing a release with notebooks/ -----------------------------------------------------


def _cells(path: Path) -> list[dict]:
    nb = nbformat.read(path, as_version=4)
    return [
        {
            "cell_type": c.cell_type,
            "source": c.source,
            "metadata": {k: c.metadata[k] for k in CELL_KEYS if k in c.metadata},
            "outputs": len(c.get("outputs", [])),
        }
        for c in nb.cells
    ]


def _kernel(path: Path) -> dict:
    return dict(nbformat.read(path, as_version=4).metadata.get("kernelspec", {}))


def differences(expected: Path, actual: Path) -> list[str]:
    """What differs between two trees of released assignments (empty when they agree).

    Notebooks are compared by what a learner gets: each cell's type, source, nbgrader metadata
    and lock flags, the outputs (there must be none) and the kernel; other files byte for byte.
    """
    found = []

    def files(root: Path) -> set[str]:
        if not root.is_dir():
            return set()
        return {
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
        }

    want, have = files(expected), files(actual)
    found += [f"{actual.name}/{f}: missing (run `make release`)" for f in sorted(want - have)]
    found += [f"{actual.name}/{f}: not made by a release (remove it)" for f in sorted(have - want)]
    for rel in sorted(want & have):
        a, b = expected / rel, actual / rel
        if rel.endswith(".ipynb"):
            if _kernel(a) != _kernel(b):
                found.append(f"{actual.name}/{rel}: kernelspec differs")
            ca, cb = _cells(a), _cells(b)
            if len(ca) != len(cb):
                found.append(f"{actual.name}/{rel}: {len(cb)} cells, a release makes {len(ca)}")
                continue
            for i, (x, y) in enumerate(zip(ca, cb, strict=True), start=1):
                for key in x:
                    if x[key] != y[key]:
                        found.append(f"{actual.name}/{rel}: cell {i} {key} differs")
        elif a.read_bytes() != b.read_bytes():
            found.append(f"{actual.name}/{rel}: differs")
    return found


# -- keeping sources clean ---------------------------------------------------------------------


def strip_outputs(path: Path) -> bool:
    """Remove outputs and execution counts from a notebook in place; True if it had any."""
    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
            cell.outputs, cell.execution_count = [], None
            changed = True
    if changed:
        nbformat.write(nb, path)
    return changed


def release_edition(
    edition: Edition, names: list[str] | None = None, check: bool = False, course: bool = False
) -> int:
    """Release one edition (``names``: default all its lessons); with ``check``, change nothing
    and return 1 where its notebooks/ is stale."""
    own = assignments(edition.solutions)
    names = own if names is None else [n for n in names if n in own]
    solutions, notebooks = edition.solutions, edition.notebooks
    if not names:
        stale = [n for n in assignments(notebooks) if n not in own]
        if check and stale:
            print(f"{edition} has {', '.join(stale)}, which {solutions.relative_to(ROOT)}/ lacks")
            return 1
        print(f"{edition}: no lesson to release")
        return 0
    if not check:
        for name in names:
            for path in sorted((solutions / name).glob("*.ipynb")):
                if strip_outputs(path):
                    print(f"stripped outputs from {path.relative_to(ROOT)}")
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        built = generate(Path(tmp), names, solutions)
        problems = []
        for name in names:
            problems += differences(built / name, notebooks / name)
        if check:
            for name in names:
                for path in sorted((solutions / name).glob("*.ipynb")):
                    if any(c["outputs"] for c in _cells(path)):
                        problems.append(
                            f"{path.relative_to(ROOT)}: has outputs (run `make release`)"
                        )
            if problems:
                print(f"{edition} is out of date with its solutions/:", *problems, sep="\n  ")
                return 1
            print(f"{edition} is up to date ({len(names)} assignments)")
            return 0
        for name in names:
            target = notebooks / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(built / name, target)
            for path in target.rglob("*"):
                if path.is_file():
                    path.chmod(0o644)
        stale = [
            p.name
            for p in notebooks.iterdir()
            if p.is_dir() and not p.name.startswith(".") and p.name not in own
        ]
        for name in stale:
            shutil.rmtree(notebooks / name)
            print(f"removed {edition}{name} (no such assignment in its solutions/)")
        print(
            f"released {len(names)} assignments into {edition}"
            + (f" ({len(problems)} changes)" if problems else " (no changes)")
        )
    if course:
        generate_course(edition.root, names, notebooks)
        print(
            f"the course folder {edition.root} is ready: {len(names)} assignments in its "
            "gradebook, release/ for `nbgrader release_assignment` (not released to any exchange)"
        )
    return 0


def lesson_table(solutions: Path = SOLUTIONS) -> str:
    """README.md's lesson table: each lesson's title (``# NN · Topic: about`` in its notebook)
    and the exercises the contract gives it."""
    from autograder.contract import CONTRACT

    rows = ["| lesson | about | you build |", "|---|---|---|"]
    for name in assignments(solutions):
        [path] = sorted((solutions / name).glob("*.ipynb"))
        title = nbformat.read(path, as_version=4).cells[0].source.splitlines()[0]
        number, _, rest = title.removeprefix("# ").partition(" · ")
        topic, _, about = rest.partition(": ")
        built = ", ".join(f"`{e.name}`" for e in CONTRACT if e.lesson == name) or "—"
        rows.append(f"| {number} {topic} | {about} | {built} |")
    return "\n" + "\n".join(rows) + "\n\n"


def release_readme(check: bool = False) -> int:
    """Rewrite README.md's lesson table; with ``check``, change nothing and return 1 if stale."""
    head, start, rest = README.read_text().partition(TABLE[0] + "\n")
    old, end, tail = rest.partition(TABLE[1])
    if not (start and end):
        raise ReleaseError(f"README.md has no lesson table between {TABLE[0]} and {TABLE[1]}")
    new = lesson_table()
    if old == new:
        return 0
    if check:
        print("README.md's lesson table is out of date with the notebooks and the contract")
        return 1
    README.write_text(head + start + new + end + tail)
    print("rewrote README.md's lesson table")
    return 0


def release(
    names: list[str] | None = None,
    check: bool = False,
    course: bool = False,
    editions: tuple[Edition, ...] = EDITIONS,
) -> int:
    """Release every edition in ``editions``; 1 if a check found one stale."""
    if names:
        unknown = [n for n in names if not any(n in assignments(e.solutions) for e in editions)]
        if unknown:
            raise ReleaseError(f"no such assignment: {', '.join(unknown)}")
    stale = max(release_edition(e, names, check, course) for e in editions)
    return max(stale, release_readme(check))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="default: every folder of solutions/")
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if notebooks/ is stale"
    )
    parser.add_argument(
        "--course",
        action="store_true",
        help="then make the repo root an nbgrader course: the assignments in its gradebook.db, "
        "the learners' versions in release/",
    )
    parser.add_argument(
        "--lang",
        choices=[e.lang for e in EDITIONS],
        help="release this edition only (default: every edition)",
    )
    args = parser.parse_args(argv)
    if args.check and args.course:
        parser.error("--check changes nothing; give --course without it")
    editions = tuple(e for e in EDITIONS if args.lang in (None, e.lang))
    try:
        return release(
            args.assignments or None, check=args.check, course=args.course, editions=editions
        )
    except ReleaseError as e:
        print(f"release failed: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

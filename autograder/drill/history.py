"""The learner's drill history: one JSON file in the user's data directory, never in the repo.

``ATTENTION_DRILL_HOME`` overrides the directory (tests use a temporary one). A file that cannot
be read is renamed ``history.json.corrupt-<time>`` (reported, never deleted) and a fresh history
starts; every write goes to a temporary file first, then replaces the old one at once.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

ENV = "ATTENTION_DRILL_HOME"
VERSION = 1


def home() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("attention-from-scratch", appauthor=False)) / "drill"


def now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Attempt:
    drill: str
    at: str  # ISO time, UTC
    passed: bool
    seconds: float | None  # since `start`; None when the file was not started by `start`
    mistakes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # the exercises that failed
    revealed: bool = False  # the model answer had been shown before this attempt


@dataclass
class History:
    path: Path
    attempts: list[Attempt] = field(default_factory=list)
    started: dict[str, dict] = field(default_factory=dict)  # file -> {"drill", "at"}
    revealed: dict[str, str] = field(default_factory=dict)  # drill -> ISO time of the reveal
    notice: str | None = None  # what happened to an unreadable file

    def of(self, drill: str) -> list[Attempt]:
        return [a for a in self.attempts if a.drill == drill]

    def passed(self, drill: str) -> bool:
        return any(a.passed for a in self.of(drill))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "version": VERSION,
            "attempts": [asdict(a) for a in self.attempts],
            "started": self.started,
            "revealed": self.revealed,
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


def _parse(path: Path, text: str) -> History:
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise ValueError(f"not a version-{VERSION} drill history")
    attempts = [Attempt(**a) for a in data.get("attempts", [])]
    for a in attempts:
        datetime.fromisoformat(a.at)
    started, revealed = data.get("started", {}), data.get("revealed", {})
    if not isinstance(started, dict) or not isinstance(revealed, dict):
        raise ValueError("'started' and 'revealed' must be objects")
    return History(path, attempts, started, revealed)


def load(directory: Path | None = None) -> History:
    """The history (empty when there is none yet); an unreadable file is set aside, reported."""
    path = (directory or home()) / "history.json"
    if not path.exists():
        return History(path)
    try:
        return _parse(path, path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as e:
        stamp = now().strftime("%Y%m%dT%H%M%S")
        aside = path.with_name(f"{path.name}.corrupt-{stamp}")
        os.replace(path, aside)
        notice = (
            f"warning: the drill history {path} could not be read ({e}); it was kept as {aside} "
            "and a new history starts."
        )
        print(notice, file=sys.stderr)
        return History(path, notice=notice)

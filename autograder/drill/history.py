"""The learner's drill history: one JSON file in the user's data directory, never in the repo.

``ATTENTION_DRILL_HOME`` overrides the directory (tests use a temporary one). A file that cannot
be read is renamed ``history.json.corrupt-<time>`` (reported, never deleted) and a fresh history
starts; every write goes to a temporary file first, then replaces the old one at once.

What it holds: the attempts (each ``check``), the running timers (``start``), what was seen
(``hint`` and ``reveal``, with their times: they count against the attempts that follow,
:func:`seen_before`), the sessions (``session``) and the quiz answers. Version 1 files (before
sessions) are read as they are: their reveals become reveal events.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

ENV = "ATTENTION_DRILL_HOME"
VERSION = 2
READS = (1, 2)
SEEN_FOR = timedelta(hours=24)  # a hint or a reveal counts against the attempts of the next day


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
    seconds: float | None  # since `start`, the grader's own time left out; None: no timer
    mistakes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # the exercises that failed
    revealed: bool = False  # the model answer was shown before it (seen_before)
    hints: int = 0  # the most hint levels read before it (seen_before)
    session: str | None = None  # the session it belongs to (its id), if any


@dataclass
class History:
    path: Path
    attempts: list[Attempt] = field(default_factory=list)
    started: dict[str, dict] = field(default_factory=dict)  # file -> {"drill", "at", "grader"}
    # what was seen: {"kind": "hint" | "reveal", "drill", "at", "level"?}
    seen: list[dict] = field(default_factory=list)
    sessions: list[dict] = field(
        default_factory=list
    )  # {"id", "started", "drills", "how", "ended"}
    answers: list[dict] = field(default_factory=list)  # quiz: {"question", "at", "correct", ...}
    notice: str | None = None  # what happened to an unreadable file

    def of(self, drill: str) -> list[Attempt]:
        return [a for a in self.attempts if a.drill == drill]

    def passed(self, drill: str) -> bool:
        return any(a.passed for a in self.of(drill))

    @property
    def revealed(self) -> dict[str, str]:
        """drill -> the time of its latest reveal."""
        return {e["drill"]: e["at"] for e in self.seen if e["kind"] == "reveal"}

    def saw(self, kind: str, drill: str, at: datetime, level: int = 0) -> None:
        self.seen.append({"kind": kind, "drill": drill, "at": at.isoformat(), "level": level})

    def seen_before(self, drill: str, at: datetime) -> tuple[int, bool]:
        """(hint levels read, whether the answer was revealed) that count against an attempt at
        ``drill`` at ``at``, of the last 24 hours: hints until the drill's next pass, a reveal
        until its next pass without it (a revealed pass does not end it: a trial's second pass,
        97 s after the reveal, was rated Easy). A reveal right after a pass, to read the model
        answer, counts against a quick repeat, not against that pass."""
        since = clean = at - SEEN_FOR
        for a in self.of(drill):
            t = datetime.fromisoformat(a.at)
            if a.passed and since < t <= at:
                since = t
            if a.passed and not a.revealed and clean < t <= at:
                clean = t
        events = [
            (e, datetime.fromisoformat(e["at"]))
            for e in self.seen
            if e["drill"] == drill and clean < datetime.fromisoformat(e["at"]) <= at
        ]
        hints = max(
            (e.get("level", 0) for e, t in events if e["kind"] == "hint" and t > since), default=0
        )
        return hints, any(e["kind"] == "reveal" for e, _t in events)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "version": VERSION,
            "attempts": [asdict(a) for a in self.attempts],
            "started": self.started,
            "seen": self.seen,
            "sessions": self.sessions,
            "answers": self.answers,
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


def _parse(path: Path, text: str) -> History:
    from autograder.drill.catalogue import canonical

    data = json.loads(text)
    if not isinstance(data, dict) or data.get("version") not in READS:
        raise ValueError(f"not a drill history (version {' or '.join(map(str, READS))})")
    attempts = [Attempt(**a) for a in data.get("attempts", [])]
    for a in attempts:
        datetime.fromisoformat(a.at)
        a.drill = canonical(a.drill)  # an exercise's name, from before its drill was merged
    started = data.get("started", {})
    seen = list(data.get("seen", []))
    revealed = data.get("revealed", {})  # version 1: drill -> the time of the first reveal
    sessions, answers = data.get("sessions", []), data.get("answers", [])
    if not all(isinstance(x, dict) for x in (started, revealed)) or not all(
        isinstance(x, list) for x in (seen, sessions, answers)
    ):
        raise ValueError(
            "'started' and 'revealed' must be objects; 'seen', 'sessions', 'answers' lists"
        )
    seen += [{"kind": "reveal", "drill": d, "at": t, "level": 0} for d, t in revealed.items()]
    for e in seen:
        datetime.fromisoformat(e["at"])
        e["drill"] = canonical(e["drill"])
    return History(path, attempts, started, seen, sessions, answers)


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

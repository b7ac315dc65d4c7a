"""Focused sessions, ``drill session``: a list of drills to practise now (chosen with
``--focus``, or those due with ``--due``), followed by ``next``, with one review per drill
(:mod:`schedule`). A session ends with ``session --end``, when a new one starts, or after
:data:`LASTS` without an attempt."""

from __future__ import annotations

from datetime import datetime, timedelta

from autograder.drill.catalogue import DRILLS
from autograder.drill.history import History
from autograder.drill.schedule import Review, plan, review_rating
from autograder.i18n import N_

LASTS = timedelta(hours=6)
DUE_AT_MOST = 5  # `--due`: the most overdue drills, at most this many


def current(h: History, at: datetime) -> dict | None:
    """The session in progress at ``at``, or None."""
    if not h.sessions or h.sessions[-1].get("ended"):
        return None
    s = h.sessions[-1]
    times = [datetime.fromisoformat(s["started"])]
    times += [datetime.fromisoformat(a.at) for a in h.attempts if a.session == s["id"]]
    if at - max(times) > LASTS:
        return None
    return s


def begin(h: History, drills: list[str], how: str, at: datetime) -> dict:
    end(h, at)
    s = {
        "id": at.isoformat(),
        "started": at.isoformat(),
        "drills": drills,
        "how": how,
        "ended": None,
    }
    h.sessions.append(s)
    return s


def end(h: History, at: datetime) -> dict | None:
    """End the session in progress (if any); returns it."""
    s = current(h, at)
    if s is not None:
        s["ended"] = at.isoformat()
    elif h.sessions and not h.sessions[-1].get("ended"):
        h.sessions[-1]["ended"] = h.sessions[-1]["started"]  # stale: ended long ago
    return s


def due(h: History, at: datetime) -> list[str]:
    """The drills due now, most overdue first (at most DUE_AT_MOST)."""
    return [d.drill.name for d in plan(h, at) if d.due is not None and d.due <= at][:DUE_AT_MOST]


def status(h: History, s: dict) -> list[tuple[str, str, Review | None]]:
    """Each drill of the session: ("passed" | "failed so far" | "not tried", its review); the
    state is data, ``_(state)`` says it."""
    out = []
    for name in s["drills"]:
        tries = [a for a in h.of(name) if a.session == s["id"]]
        if not tries:
            out.append((name, N_("not tried"), None))
            continue
        r, why = review_rating(tries, DRILLS[name])
        decided = next((a for a in tries if a.passed), tries[-1])
        review = Review(name, datetime.fromisoformat(decided.at), r, why, tuple(tries), s["id"])
        state = N_("passed") if any(a.passed for a in tries) else N_("failed so far")
        out.append((name, state, review))
    return out


def next_drill(h: History, s: dict) -> str | None:
    """The session's next drill: the first not passed yet (one tried and failed comes first)."""
    rows = status(h, s)
    failed = [n for n, state, _review in rows if state == "failed so far"]
    untried = [n for n, state, _review in rows if state == "not tried"]
    return (failed + untried or [None])[0]

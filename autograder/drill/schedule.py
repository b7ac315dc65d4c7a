"""What to practise next: the FSRS spaced-repetition scheduler (the ``fsrs`` package) over the
history, one review per drill per session.

A **review** is one go at a drill, however many checks it took: the attempts of one session
(``drill session``), or, outside sessions, a run of attempts that ends at a pass (or after an
hour without one). Iterating is not forgetting: fail, fail, pass in 90 s is one review.

Its rating (:func:`review_rating`) comes from what happened up to the first pass:

- ``Again``: not passed, or the model answer was shown first (``reveal``, within the day before:
  a revealed pass is not recall);
- by the time of the pass against the drill's target: ``Easy`` within half of it, ``Good``
  within it, ``Hard`` beyond it (``Good`` when there was no timer);
- at most ``Good`` after a failed check or a hint; at most ``Hard`` after 3 failed checks or 2
  hint levels.

A reveal with no attempt after it (and no pass just before it) is an ``Again`` review of its own.
FSRS turns the reviews into a due date per drill, so failed and slow drills come back sooner.
FSRS's learning steps (1 and 10 minutes) fit flash cards, not a 20-minute drill: a passed drill
is never due again the same day (:data:`AFTER_A_PASS`); a failed one keeps the short steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from fsrs import Card, Rating, Scheduler

from autograder.drill.catalogue import DRILLS, Drill
from autograder.drill.history import SEEN_FOR, Attempt, History
from autograder.i18n import N_, _, ngettext

RUN_GAP = timedelta(hours=1)  # outside sessions, attempts further apart are separate reviews
AFTER_A_PASS = timedelta(days=1)  # the shortest interval after a passed review


@dataclass(frozen=True)
class Review:
    drill: str
    at: datetime  # when it was decided: the first pass, else the last attempt (or the reveal)
    rating: Rating
    why: str
    attempts: tuple[Attempt, ...] = ()
    session: str | None = None


RATINGS = {  # FSRS's ratings as the candidate reads them
    Rating.Again: N_("Again"),
    Rating.Hard: N_("Hard"),
    Rating.Good: N_("Good"),
    Rating.Easy: N_("Easy"),
}


def rating_name(rating: Rating) -> str:
    """The rating's name in the reader's language (its ``.name`` is the data)."""
    return _(RATINGS[Rating(rating)])


def review_rating(attempts: list[Attempt], drill) -> tuple[Rating, str]:
    """The rating of one review: its attempts, in order (see the module's docstring); its
    reason in the reader's language."""
    first = next((i for i, a in enumerate(attempts) if a.passed), None)
    upto = attempts if first is None else attempts[: first + 1]
    if any(a.revealed for a in upto):
        return Rating.Again, _("the model answer was shown first")
    if first is None:
        n = len(attempts)
        return Rating.Again, ngettext(
            "not passed in {n} check", "not passed in {n} checks", n
        ).format(n=n)
    fails, hints, seconds = first, max(a.hints for a in upto), upto[-1].seconds
    minutes = None if seconds is None else f"{seconds / 60:.1f}"
    if seconds is None:
        rating, why = Rating.Good, _("passed (no timer)")
    elif seconds <= drill.target_seconds / 2:
        rating, why = Rating.Easy, _("passed in {minutes} min, within half the target")
    elif seconds <= drill.target_seconds:
        rating, why = Rating.Good, _("passed in {minutes} min, within the target")
    else:
        rating, why = Rating.Hard, _("passed in {minutes} min, over the target")
    notes = [why.format(minutes=minutes)]
    if fails:
        notes.append(
            ngettext("after {n} failed check", "after {n} failed checks", fails).format(n=fails)
        )
    if hints:
        notes.append(ngettext("with {n} hint level", "with {n} hint levels", hints).format(n=hints))
    capped = rating
    if fails or hints:
        capped = min(capped, Rating.Good)
    if fails >= 3 or hints >= 2:
        capped = min(capped, Rating.Hard)
    if capped != rating:  # say why it is lower than the time alone gives
        cap = (
            _("at most Hard after 3 failed checks or 2 hint levels")
            if capped == Rating.Hard
            else _("at most Good after a failed check or a hint")
        )
        notes.append(
            _("so {capped}, not {rating}: {cap}").format(
                capped=rating_name(capped), rating=rating_name(rating), cap=cap
            )
        )
    return Rating(capped), _(", ").join(notes)


def rating(attempt: Attempt, drill: Drill) -> Rating:
    """The rating of a review made of this one attempt."""
    return review_rating([attempt], drill)[0]


def review_groups(attempts: list[Attempt]) -> list[list[Attempt]]:
    groups: list[list[Attempt]] = []
    for a in sorted(attempts, key=lambda a: a.at):
        if groups:
            last = groups[-1][-1]
            same_session = a.session is not None and a.session == last.session
            gap = datetime.fromisoformat(a.at) - datetime.fromisoformat(last.at)
            open_run = a.session is None and last.session is None and not last.passed
            if same_session or (open_run and gap <= RUN_GAP):
                groups[-1].append(a)
                continue
        groups.append([a])
    return groups


def _review(name: str, group: list[Attempt], drill) -> Review:
    decided = next((a for a in group if a.passed), group[-1])
    r, why = review_rating(group, drill)
    return Review(name, datetime.fromisoformat(decided.at), r, why, tuple(group), group[0].session)


def reviews(history: History, name: str) -> list[Review]:
    """The drill's reviews, in time order."""
    drill = DRILLS[name]
    out = [_review(name, group, drill) for group in review_groups(history.of(name))]
    times = [datetime.fromisoformat(a.at) for a in history.of(name)]
    passes = [datetime.fromisoformat(a.at) for a in history.of(name) if a.passed]
    for e in history.seen:
        if e["kind"] != "reveal" or e["drill"] != name:
            continue
        t = datetime.fromisoformat(e["at"])
        followed = any(t < u <= t + SEEN_FOR for u in times)
        after_pass = any(t - SEEN_FOR < u <= t for u in passes)
        if not followed and not after_pass:
            out.append(Review(name, t, Rating.Again, _("revealed without an attempt")))
    return sorted(out, key=lambda r: r.at)


def _replay(rs: list[Review]) -> Card:
    scheduler = Scheduler(enable_fuzzing=False)
    c = Card()
    for r in sorted(rs, key=lambda r: r.at):
        c, _log = scheduler.review_card(c, r.rating, r.at)
        if r.rating != Rating.Again:
            c.due = max(c.due, r.at + AFTER_A_PASS)
    return c


def card(drill: Drill, attempts: list[Attempt]) -> Card:
    """The drill's FSRS card after replaying the reviews these attempts make."""
    return _replay([_review(drill.name, g, drill) for g in review_groups(attempts)])


def card_of(history: History, name: str) -> Card | None:
    """The drill's card from all its reviews (reveals included), or None when it has none."""
    rs = reviews(history, name)
    return _replay(rs) if rs else None


@dataclass(frozen=True)
class Due:
    drill: Drill
    due: datetime | None  # None: never tried
    reason: str


def plan(history: History, at: datetime) -> list[Due]:
    """Every drill in the order to practise them at time ``at``: the tried drills that are due,
    most overdue first; then the untried ones, easiest first; then the rest by due date."""
    due, new, later = [], [], []
    for drill in DRILLS.values():
        rs = reviews(history, drill.name)
        if not rs:
            new.append(Due(drill, None, _("never tried")))
            continue
        c = card_of(history, drill.name)
        what = _("last review {rating} ({why})").format(
            rating=rating_name(rs[-1].rating), why=rs[-1].why
        )
        when = f"{c.due:%Y-%m-%d %H:%M}"
        if c.due <= at:
            due.append(
                Due(drill, c.due, _("{what}; due since {when} UTC").format(what=what, when=when))
            )
        else:
            later.append(
                Due(drill, c.due, _("{what}; due {when} UTC").format(what=what, when=when))
            )
    new.sort(key=lambda d: (d.drill.difficulty, d.drill.minutes))
    return (
        sorted(due, key=lambda d: d.due) + new + sorted(later, key=lambda d: d.due)  # type: ignore[arg-type,return-value]
    )

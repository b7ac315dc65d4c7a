"""The ``session`` and ``quiz`` verbs of ``python -m autograder drill``, and the session lines
the other verbs print."""

from __future__ import annotations

import sys

from autograder.drill import catalogue, history, session
from autograder.drill.commands import command

EXIT_OK, EXIT_FAILED, EXIT_BAD = 0, 1, 2


def _find(name: str):
    try:
        return catalogue.find(name)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return None


def session_line(h: history.History, s: dict) -> None:
    """How far the session is; the pass that completes it ends it, and says so."""
    rows = session.status(h, s)
    done = sum(state == "passed" for _, state, _ in rows)
    following = session.next_drill(h, s)
    if following:
        print(f"Session: {done}/{len(rows)} passed; next: {following}")
        return
    session.end(h, history.now())
    h.save()
    print(f"Session: {done}/{len(rows)} passed: complete, and ended.")
    summary(h, s)


def _last_complete(h: history.History) -> dict | None:
    """The last session, when it ended with every drill passed."""
    if not h.sessions or not h.sessions[-1].get("ended"):
        return None
    s = h.sessions[-1]
    return s if session.next_drill(h, s) is None else None


def run_session(h: history.History, args) -> int:
    at = history.now()
    if args.end:
        s = session.end(h, at)
        h.save()
        if s is None:
            complete = _last_complete(h)
            if complete is not None:
                print("Your last session was already complete (it ended at its last pass):")
                summary(h, complete)
            else:
                print("No session in progress.")
            return EXIT_OK
        print("Session ended.")
        summary(h, s)
        return EXIT_OK
    if args.focus or args.due:
        if args.due:
            names = session.due(h, at)
            if not names:
                print(
                    f"Nothing is due now. Choose drills: {command('session', '--focus', 'NAME')}"
                    f" (or see {command('next')})"
                )
                return EXIT_OK
        else:
            names = []
            for word in args.focus:
                for n in filter(None, word.split(",")):
                    drill = _find(n)
                    if drill is None:
                        return EXIT_BAD
                    names.append(drill.name)
            names = list(dict.fromkeys(names))
        s = session.begin(h, names, "due" if args.due else "focus", at)
        h.save()
        print(
            f"Session started: {', '.join(names)}. Each drill gets one rating for the whole "
            "session, however many checks it takes."
        )
        print(f"First: {command('start', session.next_drill(h, s))}   (`next` follows the session)")
        return EXIT_OK
    s = session.current(h, at)
    if s is None:
        print(
            "No session in progress. Start one: "
            f"{command('session', '--focus', 'sdpa-mask', 'mha')}"
            f" or {command('session', '--due')}"
        )
        return EXIT_OK
    summary(h, s)
    return EXIT_OK


def summary(h: history.History, s: dict) -> None:
    print(f"Session of {s['started'][:16].replace('T', ' ')} UTC ({s['how']}):")
    for name, state, review in session.status(h, s):
        rating = f"  rated {review.rating.name}: {review.why}" if review else ""
        print(f"  {name:<16} {state:<14}{rating}")


def run_schedule(h: history.History) -> int:
    """Each tried drill's due date and last review, soonest first; then how many are untried."""
    from autograder.drill import schedule

    at = history.now()
    plan = schedule.plan(h, at)
    tried = [d for d in plan if d.due is not None]
    if not tried:
        print(f"No drill tried yet. Start one: {command('next')}")
        return EXIT_OK
    print(f"  {'drill':<30} {'due (UTC)':<17} last review")
    for d in sorted(tried, key=lambda d: d.due):
        last = schedule.reviews(h, d.drill.name)[-1]
        when = "now" if d.due <= at else f"{d.due:%Y-%m-%d %H:%M}"
        print(f"  {d.drill.name:<30} {when:<17} {last.rating.name}: {last.why}")
    print(
        f"\n{len(plan) - len(tried)} drills never tried. Practise the due ones: "
        f"{command('session', '--due')}"
    )
    return EXIT_OK


def quiz_order(h, at):
    from autograder.drill import quiz

    return quiz.order(h, at)


def run_quiz(h: history.History, args) -> int:
    from autograder.drill import quiz

    at = history.now()
    qs = quiz.questions()
    if args.id is None:
        for qid, state in quiz.order(h, at):
            print(f"[{qid}] ({state}) {qs[qid].prompt}\n")
        print(f"Answer one: {command('quiz', '10_1', 'b')}  (answers are recorded and scheduled)")
        return EXIT_OK
    if args.answer is None:
        print(f"error: give an answer: {command('quiz', args.id, 'ANSWER')}", file=sys.stderr)
        return EXIT_BAD
    verdict = quiz.grade(args.id, args.answer)
    if not verdict.readable:  # no verdict on an answer it could not read: nothing recorded
        print(f"error: {verdict.message} Nothing was recorded.", file=sys.stderr)
        return EXIT_BAD
    if args.id in qs:
        s = session.current(h, at)
        quiz.record(h, args.id, args.answer, verdict, at, s["id"] if s else None)
        h.save()
    print(("✔ " if verdict.correct else "✘ ") + verdict.message)
    return EXIT_OK if verdict.correct else EXIT_FAILED

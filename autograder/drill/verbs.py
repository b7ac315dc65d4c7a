"""The ``hint``, ``reveal``, ``session`` and ``quiz`` verbs of ``python -m autograder drill``, and
the session lines the other verbs print."""

from __future__ import annotations

import sys
from datetime import datetime

from autograder import i18n
from autograder.drill import catalogue, files, history, session
from autograder.drill.commands import command
from autograder.i18n import _, enumeration

EXIT_OK, EXIT_FAILED, EXIT_BAD = 0, 1, 2


def find(name: str) -> catalogue.Drill | None:
    """The drill named ``name``, or None after saying on stderr why there is none."""
    try:
        return catalogue.find(name)
    except KeyError as e:
        print(_("error: {problem}").format(problem=e.args[0]), file=sys.stderr)
        return None


def session_line(h: history.History, s: dict) -> None:
    """How far the session is; the pass that completes it ends it, and says so."""
    rows = session.status(h, s)
    done = sum(state == "passed" for _name, state, _review in rows)
    following = session.next_drill(h, s)
    if following:
        print(
            _("Session: {done}/{total} passed; next: {name}").format(
                done=done, total=len(rows), name=following
            )
        )
        return
    session.end(h, history.now())
    h.save()
    print(
        _("Session: {done}/{total} passed: complete, and ended.").format(done=done, total=len(rows))
    )
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
                print(_("Your last session was already complete (it ended at its last pass):"))
                summary(h, complete)
            else:
                print(_("No session in progress."))
            return EXIT_OK
        print(_("Session ended."))
        summary(h, s)
        return EXIT_OK
    if args.focus or args.due:
        if args.due:
            names = session.due(h, at)
            if not names:
                print(
                    _("Nothing is due now. Choose drills: {command} (or see {next})").format(
                        command=command("session", "--focus", "NAME"), next=command("next")
                    )
                )
                return EXIT_OK
        else:
            names = []
            for word in args.focus:
                for n in filter(None, word.split(",")):
                    drill = find(n)
                    if drill is None:
                        return EXIT_BAD
                    names.append(drill.name)
            names = list(dict.fromkeys(names))
        s = session.begin(h, names, "due" if args.due else "focus", at)
        h.save()
        print(
            _(
                "Session started: {names}. Each drill gets one rating for the whole "
                "session, however many checks it takes."
            ).format(names=enumeration(names))
        )
        first = command("start", session.next_drill(h, s))
        print(_("First: {command}   (`next` follows the session)").format(command=first))
        return EXIT_OK
    s = session.current(h, at)
    if s is None:
        print(
            _("No session in progress. Start one: {focus} or {due}").format(
                focus=command("session", "--focus", "sdpa-mask", "mha"),
                due=command("session", "--due"),
            )
        )
        return EXIT_OK
    summary(h, s)
    return EXIT_OK


def summary(h: history.History, s: dict) -> None:
    started = s["started"][:16].replace("T", " ")
    print(_("Session of {started} UTC ({how}):").format(started=started, how=s["how"]))
    from autograder.drill.schedule import rating_name

    for name, state, review in session.status(h, s):
        rated = _("  rated {rating}: {why}")
        rating = rated.format(rating=rating_name(review.rating), why=review.why) if review else ""
        state = i18n.ljust(_(state), 14)
        print(f"  {name:<16} {state}{rating}")


def run_schedule(h: history.History) -> int:
    """Each tried drill's due date and last review, soonest first; then how many are untried."""
    from autograder.drill import schedule

    at = history.now()
    plan = schedule.plan(h, at)
    tried = [d for d in plan if d.due is not None]
    if not tried:
        print(_("No drill tried yet. Start one: {command}").format(command=command("next")))
        return EXIT_OK
    head = [i18n.ljust(_("drill"), 30), i18n.ljust(_("due (UTC)"), 17), _("last review")]
    print("  " + " ".join(head))
    for d in sorted(tried, key=lambda d: d.due):
        last = schedule.reviews(h, d.drill.name)[-1]
        when = _("now") if d.due <= at else f"{d.due:%Y-%m-%d %H:%M}"
        rating = schedule.rating_name(last.rating)
        why = _("{rating}: {why}").format(rating=rating, why=last.why)
        print(f"  {d.drill.name:<30} {i18n.ljust(when, 17)} {why}")
    print(
        "\n"
        + _("{n} drills never tried. Practise the due ones: {command}").format(
            n=len(plan) - len(tried), command=command("session", "--due")
        )
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
            print(f"[{qid}] ({quiz.state_text(state)}) {quiz.prompt(qs[qid])}\n")
        answer = command("quiz", "10_1", "b")
        print(
            _("Answer one: {command}  (answers are recorded and scheduled)").format(command=answer)
        )
        return EXIT_OK
    if args.answer is None:
        answer = command("quiz", args.id, "ANSWER")
        if args.id in qs:  # the question, to answer next (a trial got only "give an answer")
            print(f"[{args.id}] {quiz.prompt(qs[args.id])}\n")
            print(_("Answer it: {command}").format(command=answer))
            return EXIT_OK
        print(_("error: give an answer: {command}").format(command=answer), file=sys.stderr)
        return EXIT_BAD
    verdict = quiz.grade(args.id, args.answer)
    if not verdict.readable:  # no verdict on an answer it could not read: nothing recorded
        print(
            _("error: {problem} Nothing was recorded.").format(problem=verdict.message),
            file=sys.stderr,
        )
        return EXIT_BAD
    if args.id in qs:
        s = session.current(h, at)
        quiz.record(h, args.id, args.answer, verdict, at, s["id"] if s else None)
        h.save()
    print(("✔ " if verdict.correct else "✘ ") + verdict.message)
    return EXIT_OK if verdict.correct else EXIT_FAILED


def hints(drill) -> list[str]:
    from autograder.core.mistakes import MISTAKES
    from autograder.drill.extra.mistakes import IN_DRILLS
    from autograder.drill.extra.mistakes import MISTAKES as OWN

    levels = [_(text) for text in drill.hints]
    everything = list(MISTAKES.values()) + list(OWN.values())
    named = set(getattr(drill, "course_mistakes", ()))  # the course's ids a new drill also names
    known = [m for m in everything if set(m.exercises) & set(drill.exercises) or m.id in named]
    own = {m: IN_DRILLS[m, e] for m, e in IN_DRILLS if e in drill.exercises}  # in its words
    known = [own.get(m.id, m) for m in known]
    if known:
        shown = _("  [{id}] {title}. {hint}")
        levels.append(
            _("The mistakes the checks name for this drill:")
            + "\n"
            + "\n".join(shown.format(id=m.id, title=_(m.title), hint=_(m.hint)) for m in known)
        )
    if not drill.hints:
        levels.insert(0, _("Re-read the contract lines and conventions at the top of the file."))
    return levels


def hint(h: history.History, args) -> int:
    drill = find(args.name)
    if drill is None:
        return EXIT_BAD
    levels = hints(drill)
    level = max(1, min(args.level, len(levels)))
    h.saw("hint", drill.name, history.now(), level)
    h.save()
    for i, text in enumerate(levels[:level], 1):
        print(_("Hint {i}/{n}: {text}").format(i=i, n=len(levels), text=text))
    if level < len(levels):
        more = command("hint", drill.name, str(level + 1))
        print("\n" + _("More: {command}").format(command=more))
    else:
        reveal = command("reveal", drill.name)
        if args.level > len(levels):  # `hint gqa 9`: said, not silently the last (a trial)
            print("\n" + _("There are {n} hints: all shown above.").format(n=len(levels)))
        print("\n" + _("No more hints. The model answer: {command}").format(command=reveal))
    print(
        _(
            "(Hints count in the rating of your next pass: at most Good after one level, Hard "
            "after two.)"
        )
    )
    return EXIT_OK


def reveal(h: history.History, args) -> int:
    drill = find(args.name)
    if drill is None:
        return EXIT_BAD
    at = history.now()
    recent_pass = any(
        a.passed and at - datetime.fromisoformat(a.at) <= history.SEEN_FOR for a in h.of(drill.name)
    )
    h.saw("reveal", drill.name, at)
    h.save()
    if recent_pass:
        message = _(
            "You passed {name}: the model answer is yours to compare. (A repeat within "
            "24 h counts as revealed, not as a clean pass.)"
        )
    else:
        message = _(
            "You have not passed {name} today: it is revealed now, counts as a fail "
            "for the scheduler (it will come back soon), and a pass within 24 h counts as "
            "revealed, not clean."
        )
    print(message.format(name=drill.name) + "\n")
    where = (
        _("the course's reference, course_lib")
        if not getattr(drill, "answer", ())
        else _("the drill's reference")
    )
    print(_("# Model answer for {name} ({where})").format(name=drill.name, where=where) + "\n")
    print(files.model_answer(drill))
    if drill.explanation:
        print("\n" + _("Why: {explanation}").format(explanation=_(drill.explanation)))
    return EXIT_OK

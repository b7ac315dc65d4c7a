"""``python -m autograder drill VERB``: the interview trainer's command line.

    list                         every drill, its difficulty, target time and your history;
                                 the drill in progress first, as `next` says it
    start NAME [--bare] [--dir]  write a blank drill file (--bare: the interface only) and start
                                 its timer
    check FILE                   grade it (the course's checks), record the attempt (not a
                                 re-check of a passed drill with no timer, nor a file with a
                                 syntax error: autograder/drill/checking.py)
    hint NAME [LEVEL]            hints, one level at a time (recorded: they count in the rating)
    reveal NAME                  the model answer and why (recorded: a revealed pass is no pass)
    session [--focus NAME... | --due | --end]
                                 a focused session: `next` follows it, one rating per drill
    next                         what to practise now (the drill in progress, else the
                                 session's next drill, else FSRS); the verb when none is given
    schedule                     each tried drill's due date and last rating
    stats [--png FILE]           reviews (and checks), clean and revealed passes, median time
    quiz [ID ANSWER]             conceptual questions, recorded and scheduled like drills

Exit status: 0 ok (check: passed), 1 check failed or a wrong quiz answer, 2 bad input. A closed
pipe (``reveal NAME | head``) ends the output quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from autograder import contract, i18n
from autograder.drill import catalogue, checking, files, history, schedule, session, stats, verbs
from autograder.drill.commands import command
from autograder.i18n import N_, _, enumeration
from autograder.service import runtime

EXIT_OK, EXIT_FAILED, EXIT_BAD = 0, 1, 2
_CALLED: float | None = None  # when main() was called
_AGAIN = False  # main() ran before in this process: its start is not this command's
# When the candidate asked for the command, where another process knows it better: the warm
# grader sets the caller's (its own process is not young because the candidate just asked).
LAUNCHED: float | None = None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder drill",
        description=_(
            "Interview practice: blank-page drills graded by the course's checks, with "
            "hints, model answers, focused sessions, spaced repetition and conceptual questions."
        ),
    )
    verbs = parser.add_subparsers(dest="verb")  # none: `next`, as `make drill`
    verbs.add_parser("list", help=_("every drill, with difficulty, target time and your history"))
    start = verbs.add_parser("start", help=_("write a blank drill file and start the timer"))
    start.add_argument("name", metavar="NAME")
    start.add_argument("--dir", default=".", help=_("where to write drill_<NAME>.py (default .)"))
    start.add_argument("--force", action="store_true", help=_("overwrite an existing file"))
    start.add_argument(
        "--bare",
        action="store_true",
        help=_("the interview setting: the signatures and interface only, no pitfalls named"),
    )
    check = verbs.add_parser("check", help=_("grade a drill file and record the attempt"))
    check.add_argument("file", metavar="FILE")
    check.add_argument("--no-daemon", action="store_true", help=_("grade in this process"))
    hint = verbs.add_parser("hint", help=_("hints for a drill, in levels"))
    hint.add_argument("name", metavar="NAME")
    hint.add_argument("level", nargs="?", type=int, default=1, metavar="LEVEL")
    reveal = verbs.add_parser("reveal", help=_("the model answer, with its explanation"))
    reveal.add_argument("name", metavar="NAME")
    sess = verbs.add_parser("session", help=_("a focused session over chosen or due drills"))
    how = sess.add_mutually_exclusive_group()
    how.add_argument("--focus", nargs="+", metavar="NAME", help=_("these drills (commas work too)"))
    how.add_argument("--due", action="store_true", help=_("the drills due now"))
    how.add_argument("--end", action="store_true", help=_("end the session in progress"))
    verbs.add_parser("next", help=_("what to practise now"))
    verbs.add_parser("schedule", help=_("each tried drill's due date and last rating"))
    st = verbs.add_parser("stats", help=_("your history summarised"))
    st.add_argument("--png", metavar="FILE", help=_("also write the summary as a PNG plot"))
    quiz = verbs.add_parser("quiz", help=_("conceptual interview questions"))
    quiz.add_argument("id", nargs="?", metavar="ID", help=_('a question id, e.g. "10_1"'))
    quiz.add_argument("answer", nargs="?", metavar="ANSWER")
    return parser


def _launched() -> datetime:
    """When the candidate asked for this command: the caller's launch as the warm grader was
    told it (a trial: every check in the grader's first two minutes was stamped with the
    grader's own start, and the timer read 0 s), else this process's (:func:`runtime.launched`:
    the interpreter's start-up is not the candidate's time)."""
    fresh = not _AGAIN and runtime.launched(_CALLED)  # a second command here is not fresh
    return datetime.fromtimestamp(LAUNCHED or fresh or _CALLED, timezone.utc)


KINDS = (  # the sections of `list`, and why the pairs that grade one exercise were merged
    (N_("The course's exercises, one drill each"), lambda d: d.name in contract.BY_NAME),
    (
        N_(
            "Whiteboard drills (each is also the drill of the exercise it grades: `start "
            "MultiHeadAttention` is `start mha`)"
        ),
        lambda d: d in catalogue.COMPOSITES,
    ),
    (
        N_("Beyond the course: what interviews also ask"),
        lambda d: hasattr(d, "stubs") and not d.bug,
    ),
    (N_("Find the bug: you get broken code to fix"), lambda d: getattr(d, "bug", False)),
)


def _list(h: history.History) -> int:
    running = in_progress(h, history.now())
    if running:  # as `next` says it (a trial: list did not)
        _say_in_progress(running)
        print()
    width = max(len(n) for n in catalogue.DRILLS)
    aliases = {v: k for k, v in catalogue.ALIASES.items()}
    for heading, belongs in KINDS:
        print(_("{heading}:").format(heading=_(heading)))
        print(f"  {'drill':<{width}}  level   target  tries  passed  title")  # as the ids
        for d in catalogue.DRILLS.values():
            if not belongs(d):
                continue
            tries = h.of(d.name)
            title = catalogue.title(d)
            if d.name in aliases:
                title += " " + _("(grades {exercise})").format(exercise=aliases[d.name])
            print(
                f"  {d.name:<{width}}  {'*' * d.difficulty:<5}  {d.minutes:>3} min  "
                f"{len(tries):>5}  {sum(a.passed for a in tries):>6}  {title}"
            )
        print()
    print(
        _(
            "A whiteboard drill that grades one exercise is that exercise's drill, with a problem "
            "statement, hints and an interview target time: sdpa-mask for "
            "scaled_dot_product_attention (both mask forms), mha for MultiHeadAttention, rope, "
            "tiled. `masks` grades three exercises at once."
        )
    )
    start = command("start", "NAME")
    print("\n" + _("Start one: {command}   (--bare: the interview setting)").format(command=start))
    focus = command("session", "--focus", "sdpa-mask", "mha")
    print(_("Or a focused session: {command}").format(command=focus))
    return EXIT_OK


def _start(h: history.History, args) -> int:
    drill = verbs.find(args.name)
    if drill is None:
        return EXIT_BAD
    path = Path(args.dir) / f"drill_{drill.name}.py"
    if path.exists() and not args.force:
        print(
            _("error: {path} exists; pass --force to start it again from blank").format(path=path),
            file=sys.stderr,
        )
        return EXIT_BAD
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(files.blank(drill, str(path), bare=args.bare, command=command), "utf-8")
    h.started[str(path.resolve())] = {
        "drill": drill.name,
        "at": history.now().isoformat(),
        "grader": 0.0,
    }
    current = session.current(h, history.now())
    h.save()
    level = _("bare") if args.bare else _("guided")
    print(
        _("Wrote {path} ({level}): {title}, target {minutes} min. The timer is running.").format(
            path=path, level=level, title=catalogue.title(drill), minutes=drill.minutes
        )
    )
    if current and drill.name not in current["drills"]:
        print(
            _("Note: {name} is not part of your session ({drills}).").format(
                name=drill.name, drills=enumeration(current["drills"])
            )
        )
    print(_("Check it:  {command}").format(command=command("check", str(path))))
    print(_("Stuck?     {command}").format(command=command("hint", drill.name)))
    return EXIT_OK


def _go(h: history.History, name: str) -> str:
    """How to go on with a drill: check its file when its timer runs, else start it."""
    running = [f for f, t in h.started.items() if t.get("drill") == name]
    if running:
        path = Path(running[-1])
        shown = str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)
        return _("Keep going (its timer runs): {command}").format(command=command("check", shown))
    return _("Start it: {command}").format(command=command("start", name))


def in_progress(h: history.History, at: datetime) -> list[tuple[catalogue.Drill, float]]:
    """The drills whose timer runs, started within a session's span (an abandoned timer is
    forgotten), most recent last, with the minutes on their timer (the grader's time left out)."""
    out = []
    for timer in sorted(h.started.values(), key=lambda t: t["at"]):
        since = at - datetime.fromisoformat(timer["at"])
        if timer.get("drill") in catalogue.DRILLS and since <= session.LASTS:
            minutes = (since.total_seconds() - timer.get("grader", 0.0)) / 60
            out.append((catalogue.DRILLS[timer["drill"]], max(0.0, minutes)))
    return out


def _say_in_progress(running: list[tuple[catalogue.Drill, float]]) -> None:
    for d, minutes in running:
        print(
            _("In progress: {name}, {minutes} min on its timer (target {target} min).").format(
                name=d.name, minutes=f"{minutes:.1f}", target=d.minutes
            )
        )


def _next(h: history.History) -> int:
    at = history.now()
    running = in_progress(h, at)
    _say_in_progress(running)
    s = session.current(h, at)
    if s is not None:
        name = session.next_drill(h, s)
        if name is not None:
            d = catalogue.DRILLS[name]
            rows = session.status(h, s)
            state = dict((n, st) for n, st, _review in rows)[name]
            if state == "not tried":  # this line stands alone: passed in an earlier session?
                state = N_("not tried in this session")
            print(
                _("Next in your session: {name} ({title}, target {minutes} min; {state}).").format(
                    name=name, title=catalogue.title(d), minutes=d.minutes, state=_(state)
                )
            )
            print(_go(h, name))
            return EXIT_OK
        print(_("Your session is complete:"))
        verbs.summary(h, s)
        session.end(h, at)
        h.save()
    if running:  # outside a session, the drill in progress comes first
        d = running[-1][0]
        print(
            _("Next: {name} ({title}): you are on it.").format(
                name=d.name, title=catalogue.title(d)
            )
        )
        print(_go(h, d.name))
        return EXIT_OK
    last = h.attempts[-1] if h.attempts else None
    if last and not last.passed and at - datetime.fromisoformat(last.at) <= schedule.RUN_GAP:
        d = catalogue.DRILLS[last.drill]
        ago = (at - datetime.fromisoformat(last.at)).total_seconds() / 60
        print(
            _(
                "Next: {name} ({title}): you are on it, its last check failed {minutes} min ago."
            ).format(name=d.name, title=catalogue.title(d), minutes=f"{ago:.0f}")
        )
        print(_go(h, d.name))
        return EXIT_OK
    first = schedule.plan(h, at)[0]
    d = first.drill
    print(
        _("Next: {name} ({title}, target {minutes} min): {reason}.").format(
            name=d.name, title=catalogue.title(d), minutes=d.minutes, reason=first.reason
        )
    )
    print(_go(h, d.name))
    due_questions = [q for q, state in verbs.quiz_order(h, at) if state == "due"]
    if due_questions:
        print(
            _("{n} quiz question(s) due: {command}").format(
                n=len(due_questions), command=command("quiz")
            )
        )
    return EXIT_OK


def _stats(h: history.History, args) -> int:
    print(stats.text(h, command("next")))
    if args.png:
        if not h.attempts:
            print(_("error: no attempts to plot yet"), file=sys.stderr)
            return EXIT_BAD
        stats.plot(h, args.png)
        print(_("Wrote {path}").format(path=args.png))
    return EXIT_OK


def _run(args) -> int:
    h = history.load()
    table = {
        "list": lambda: _list(h),
        "start": lambda: _start(h, args),
        "check": lambda: checking.run(h, args, _launched()),
        "hint": lambda: verbs.hint(h, args),
        "reveal": lambda: verbs.reveal(h, args),
        "session": lambda: verbs.run_session(h, args),
        "next": lambda: _next(h),
        "schedule": lambda: verbs.run_schedule(h),
        "stats": lambda: _stats(h, args),
        "quiz": lambda: verbs.run_quiz(h, args),
    }
    return table[args.verb or "next"]()


def main(argv: list[str] | None = None) -> int:
    global _CALLED, _AGAIN
    _AGAIN, _CALLED = _CALLED is not None, time.time()
    args = i18n.localise(_parser()).parse_args(argv)
    try:
        code = _run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # `reveal mha | head`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit's own flush is quiet too
        return EXIT_OK

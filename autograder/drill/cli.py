"""``python -m autograder drill VERB``: the interview trainer's command line.

    list                      every drill, its difficulty, target time and your history
    start NAME [--dir DIR]    write a blank drill file and start its timer
    check FILE                grade it (the same checks as `autograder check`), record the attempt
    hint NAME [LEVEL]         hints, one level at a time
    reveal NAME               the model answer and why (before a pass it counts as a fail)
    next                      what to practise now (FSRS spaced repetition over your history)
    stats [--png FILE]        attempts, pass rate, median time, recurring mistakes
    quiz [ID ANSWER]          the conceptual interview questions; with ID ANSWER, grade an answer

Exit status: 0 ok (check: passed), 1 check failed or a wrong quiz answer, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path

from autograder.drill import catalogue, files, history, schedule, stats

EXIT_OK, EXIT_FAILED, EXIT_BAD = 0, 1, 2
CMD = ".venv/bin/python -m autograder drill"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder drill",
        description="Interview practice: blank-page drills graded by the course's checks, with "
        "hints, model answers, spaced repetition and conceptual questions.",
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="every drill, with difficulty, target time and your history")
    start = verbs.add_parser("start", help="write a blank drill file and start the timer")
    start.add_argument("name", metavar="NAME")
    start.add_argument("--dir", default=".", help="where to write drill_<NAME>.py (default .)")
    start.add_argument("--force", action="store_true", help="overwrite an existing file")
    check = verbs.add_parser("check", help="grade a drill file and record the attempt")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--no-daemon", action="store_true", help="grade in this process")
    hint = verbs.add_parser("hint", help="hints for a drill, in levels")
    hint.add_argument("name", metavar="NAME")
    hint.add_argument("level", nargs="?", type=int, default=1, metavar="LEVEL")
    reveal = verbs.add_parser("reveal", help="the model answer, with its explanation")
    reveal.add_argument("name", metavar="NAME")
    verbs.add_parser("next", help="what to practise now")
    st = verbs.add_parser("stats", help="your history summarised")
    st.add_argument("--png", metavar="FILE", help="also write the summary as a PNG plot")
    quiz = verbs.add_parser("quiz", help="conceptual interview questions")
    quiz.add_argument("id", nargs="?", metavar="ID", help='a question id, e.g. "10_1"')
    quiz.add_argument("answer", nargs="?", metavar="ANSWER")
    return parser


def _find(name: str) -> catalogue.Drill | None:
    try:
        return catalogue.find(name)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return None


def _list(h: history.History) -> int:
    width = max(len(n) for n in catalogue.DRILLS)
    print(f"{'drill':<{width}}  level   target  tries  passed  title")
    for d in catalogue.DRILLS.values():
        tries = h.of(d.name)
        print(
            f"{d.name:<{width}}  {'*' * d.difficulty:<5}  {d.minutes:>3} min  {len(tries):>5}  "
            f"{sum(a.passed for a in tries):>6}  {d.title if d.title != d.name else ''}"
        )
    print(f"\nStart one: {CMD} start NAME   (or let the scheduler choose: {CMD} next)")
    return EXIT_OK


def _start(h: history.History, args) -> int:
    drill = _find(args.name)
    if drill is None:
        return EXIT_BAD
    path = Path(args.dir) / f"drill_{drill.name}.py"
    if path.exists() and not args.force:
        print(f"error: {path} exists; pass --force to start it again from blank", file=sys.stderr)
        return EXIT_BAD
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(files.blank(drill, str(path)), encoding="utf-8")
    h.started[str(path.resolve())] = {"drill": drill.name, "at": history.now().isoformat()}
    h.save()
    print(f"Wrote {path}: {drill.title}, target {drill.minutes} min. The timer is running.")
    print(f"Check it:  {CMD} check {path}")
    print(f"Stuck?     {CMD} hint {drill.name}")
    return EXIT_OK


def _check(h: history.History, args) -> int:
    from autograder import report
    from autograder.extract import ExtractError
    from autograder.judge import NothingToGrade, judge_file
    from autograder.sandbox import warm_up

    path = Path(args.file)
    try:
        name = files.drill_of(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: cannot read {path}: {e}", file=sys.stderr)
        return EXIT_BAD
    session = h.started.get(str(path.resolve()))
    name = name or (session or {}).get("drill")
    drill = _find(name) if name else None
    if drill is None:
        print(
            f"error: {path} does not name its drill: its first line should be "
            f"'{files.HEADER}NAME' (files from `drill start` have it)",
            file=sys.stderr,
        )
        return EXIT_BAD
    warm_up()
    try:
        results = judge_file(path, drill.exercises)
    except (ExtractError, NothingToGrade) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD
    print(report.human(str(path), results))
    passed = all(r.passed for r in results)
    seconds = None
    if session and session.get("drill") == drill.name:
        seconds = (history.now() - datetime.fromisoformat(session["at"])).total_seconds()
    revealed = drill.name in h.revealed and not h.passed(drill.name)
    h.attempts.append(
        history.Attempt(
            drill.name,
            history.now().isoformat(),
            passed,
            seconds,
            [r.mistake for r in results if r.mistake],
            [r.exercise for r in results if not r.passed],
            revealed,
        )
    )
    if passed:
        h.started.pop(str(path.resolve()), None)  # the timer stops at a pass
    h.save()
    timing = "" if seconds is None else f" in {seconds / 60:.1f} min (target {drill.minutes})"
    if passed:
        print(f"\nPassed{timing}. The model answer: {CMD} reveal {drill.name}")
    else:
        print(f"\nNot yet{timing}. Fix it and check again, or: {CMD} hint {drill.name}")
    return EXIT_OK if passed else EXIT_FAILED


def _hints(drill: catalogue.Drill) -> list[str]:
    from autograder.mistakes import MISTAKES

    levels = list(drill.hints)
    known = [m for m in MISTAKES.values() if set(m.exercises) & set(drill.exercises)]
    if known:
        levels.append(
            "The mistakes the checks name for this drill:\n"
            + "\n".join(f"  [{m.id}] {m.title}. {m.hint}" for m in known)
        )
    if not drill.hints:
        levels.insert(0, "Re-read the contract lines and conventions at the top of the file.")
    return levels


def _hint(args) -> int:
    drill = _find(args.name)
    if drill is None:
        return EXIT_BAD
    levels = _hints(drill)
    level = max(1, min(args.level, len(levels)))
    for i, text in enumerate(levels[:level], 1):
        print(f"Hint {i}/{len(levels)}: {text}")
    if level < len(levels):
        print(f"\nMore: {CMD} hint {drill.name} {level + 1}")
    else:
        print(f"\nNo more hints. The model answer: {CMD} reveal {drill.name}")
    return EXIT_OK


def _reveal(h: history.History, args) -> int:
    drill = _find(args.name)
    if drill is None:
        return EXIT_BAD
    if not h.passed(drill.name):
        print(
            f"You have not passed {drill.name} yet: it is revealed now, and counts as a fail for "
            "the scheduler (it will come back soon).\n"
        )
        h.revealed[drill.name] = history.now().isoformat()
        h.save()
    print(f"# Model answer for {drill.name} (the course's reference, course_lib)\n")
    print(files.model_answer(drill))
    if drill.explanation:
        print(f"\nWhy: {drill.explanation}")
    return EXIT_OK


def _next(h: history.History) -> int:
    first = schedule.plan(h, history.now())[0]
    d = first.drill
    print(f"Next: {d.name} ({d.title}, target {d.minutes} min): {first.reason}.")
    print(f"Start it: {CMD} start {d.name}")
    return EXIT_OK


def _stats(h: history.History, args) -> int:
    print(stats.text(h))
    if args.png:
        if not h.attempts:
            print("error: no attempts to plot yet", file=sys.stderr)
            return EXIT_BAD
        stats.plot(h, args.png)
        print(f"Wrote {args.png}")
    return EXIT_OK


def _quiz(args) -> int:
    from autograder.questions import QUESTIONS, grade_answer

    ours = {qid: q for qid, q in QUESTIONS.items() if qid.startswith("10_")}
    if args.id is None:
        for q in ours.values():
            print(f"[{q.id}] {q.prompt}\n")
        print(f'Answer one: {CMD} quiz 10_1 "b"')
        return EXIT_OK
    if args.answer is None:
        print(f"error: give an answer: {CMD} quiz {args.id} ANSWER", file=sys.stderr)
        return EXIT_BAD
    verdict = grade_answer(args.id, args.answer)
    print(("✔ " if verdict.correct else "✘ ") + verdict.message)
    return EXIT_OK if verdict.correct else EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.verb == "quiz":
        return _quiz(args)
    if args.verb == "hint":
        return _hint(args)
    h = history.load()
    verbs = {
        "list": lambda: _list(h),
        "start": lambda: _start(h, args),
        "check": lambda: _check(h, args),
        "reveal": lambda: _reveal(h, args),
        "next": lambda: _next(h),
        "stats": lambda: _stats(h, args),
    }
    return verbs[args.verb]()

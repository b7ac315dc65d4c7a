"""``drill check FILE``: grade a drill file with the course's checks and record the attempt.

Two checks grade and report but record nothing, since neither is a go at the drill (README,
"One rating per drill per session"):

- a file that Python cannot read (a syntax error): nothing was graded. It is said as ``check``
  says it (a trial: "RMSNorm is not defined in your code" sent the candidate hunting for a
  naming mistake, and the failed check it recorded capped the rating). Exit status 2, as for a
  file that cannot be opened;
- a **re-check**: a file with no timer running (it stopped at the pass, or there never was one)
  of a drill already passed. A trial's re-checks, each to see the result again, counted as one
  more passed review each and moved the due date. ``start NAME --force`` begins a new go.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from autograder.drill import files, history, session, verbs
from autograder.drill.commands import command
from autograder.i18n import _

EXIT_OK, EXIT_FAILED, EXIT_BAD = 0, 1, 2


def took(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.1f} min"


def run(h: history.History, args, submitted: datetime) -> int:
    """Grade ``args.file``; ``submitted``: when the candidate asked (their time stops there)."""
    from autograder.check.cli import _unread  # what `check` says of a part it could not read
    from autograder.core.extract import ExtractError, from_file
    from autograder.core.judge import NothingToGrade
    from autograder.drill.extra import grading
    from autograder.sandbox.host.pool import warm_up

    path = Path(args.file)
    try:
        name = files.drill_of(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        print(
            _("error: cannot read {path}: {problem}").format(path=path, problem=e), file=sys.stderr
        )
        return EXIT_BAD
    timer = h.started.get(str(path.resolve()))
    name = name or (timer or {}).get("drill")
    drill = verbs.find(name) if name else None
    if drill is None:
        print(
            _(
                "error: {path} does not name its drill: its first line should be "
                "'{header}NAME' (files from `drill start` have it)"
            ).format(path=path, header=files.HEADER),
            file=sys.stderr,
        )
        return EXIT_BAD
    warm_up()
    try:
        code = from_file(path)
        results = [_unread(r, code) for r in grading.judge(path, drill)]
    except (ExtractError, NothingToGrade) as e:
        print(_("error: {problem}").format(problem=e), file=sys.stderr)
        return EXIT_BAD
    print(grading.human(str(path), results))
    if code.problems:
        print("\n" + _("Python could not read the file, so nothing was graded: not recorded."))
        return EXIT_BAD
    passed = all(r.passed for r in results)
    if timer and timer.get("drill") != drill.name:
        timer = None  # the file's header names another drill now
    if timer is None and h.passed(drill.name):
        return _recheck(drill, passed)
    seconds = None
    if timer:
        elapsed = (submitted - datetime.fromisoformat(timer["at"])).total_seconds()
        seconds = max(0.0, elapsed - timer.get("grader", 0.0))
        timer["grader"] = timer.get("grader", 0.0) + (history.now() - submitted).total_seconds()
    hints, revealed = h.seen_before(drill.name, submitted)
    current = session.current(h, submitted)
    in_session = current["id"] if current and drill.name in current["drills"] else None
    h.attempts.append(
        history.Attempt(
            drill.name,
            submitted.isoformat(),
            passed,
            seconds,
            [r.mistake for r in results if r.mistake],
            [r.exercise for r in results if not r.passed],
            revealed,
            hints,
            in_session,
        )
    )
    if passed:
        h.started.pop(str(path.resolve()), None)  # the timer stops at a pass
    h.save()
    timing = (
        ""
        if seconds is None
        else _(" after {took} (target {minutes} min)").format(
            took=took(seconds), minutes=drill.minutes
        )
    )
    if passed:
        note = _(" (after a reveal: not counted as a clean pass)") if revealed else ""
        print(
            "\n"
            + _("Passed{timing}{note}. The model answer: {command}").format(
                timing=timing, note=note, command=command("reveal", drill.name)
            )
        )
    else:
        print(
            "\n"
            + _("Not yet{timing}. Fix it and check again, or: {command}").format(
                timing=timing, command=command("hint", drill.name)
            )
        )
    if in_session:
        verbs.session_line(h, current)
    return EXIT_OK if passed else EXIT_FAILED


def _recheck(drill, passed: bool) -> int:
    verdict = _("Passed.") if passed else _("Not passed.")
    print(
        "\n"
        + _(
            "{verdict} A re-check: you have passed {name} and no timer runs for this file, so "
            "it is not recorded (no new review). To practise it again from blank: {command}"
        ).format(verdict=verdict, name=drill.name, command=command("start", drill.name, "--force"))
    )
    return EXIT_OK if passed else EXIT_FAILED

"""A lesson's assignment: what it is worth (its exercises and questions, fixed by the contract) and
judging a submission on exactly those, with what it lacks named and what it adds ignored."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, replace

from autograder.core.extract import LearnerCode, unread
from autograder.core.items import lesson_items
from autograder.core.judge import failed_result, judge_names, question_gradable
from autograder.core.registry import Gradable, all_exercises
from autograder.core.result import Result
from autograder.i18n import _, ngettext

SAID = 5  # the cells not read (code.problems) that the notes name one by one


@dataclass(frozen=True)
class Assignment:
    """What one lesson's assignment is worth: its exercises and questions, fixed by the contract
    (never by what a submission happens to define)."""

    lesson: str  # the lesson's number, "04"
    exercises: tuple[Gradable, ...]
    questions: tuple[str, ...]  # question ids, "04_1", ...
    points: Mapping[str, float]  # lesson_items(lesson): every item graded, in order, its points

    @property
    def items(self) -> list[str]:
        """The names graded: the exercises, then ``answer_<id>`` for each question."""
        return list(self.points)

    @property
    def max_points(self) -> float:
        return float(sum(self.points.values()))


def assignment(lesson: str) -> Assignment:
    """Lesson ``lesson``'s assignment (``lesson``: its number, ``"04"``): its items
    (``lesson_items``) with each exercise's check."""
    points = lesson_items(lesson)
    checks = all_exercises()
    exercises = tuple(checks[n] for n in points if n in checks)
    questions = tuple(n.removeprefix("answer_") for n in points if n not in checks)
    return Assignment(lesson, exercises, questions, points)


def _closest(name: str, candidates: list[str]) -> str | None:
    found = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
    return found[0] if found else None


def _missing(item: Gradable, code: LearnerCode, taken: set[str], mistake: str | None) -> Result:
    """The 0 of an item the submission does not define: where a cell not read defines it (as
    far as its lines tell), that cell's problem, the item attempted, with no mistake named (the
    class report counted such work as not attempted); else :func:`_not_found` and ``mistake``."""
    problem = code.unread_definition(item.name)
    if problem is None:
        return failed_result(item, _not_found(code, item.name, taken), mistake, attempted=False)
    said = _("{name} is in a cell the grader could not read: {problem}; fix it and try again.")
    failed = failed_result(item, said.format(name=item.name, problem=problem), None)  # no mistake
    return replace(failed, unread=True)


def _not_found(code: LearnerCode, item: str, taken: set[str]) -> str:
    """'<item> not found; you defined `<closest name>`' (or just 'not found'), and the first
    cell that was not read, where one was not: the item may be in it."""
    if item.startswith("answer_"):
        qid = item.removeprefix("answer_")
        candidates = [
            n  # an answer is a value: a function or class named answer_... is a helper
            for n in code.order
            if n not in taken and n.startswith("answer") and n not in code.callables
        ]
        close = _closest(item, candidates)
        text = _("Question {number} is not answered: set {name} = ... in its cell.")
        text = text.format(number=qid.replace("_", "."), name=item)
        if close:
            text += " " + _("You defined `{name}`: is that your answer?").format(name=close)
        return text + _unread(code)
    candidates = [n for n in code.order if n in code.callables and n not in taken]
    close = _closest(item, candidates)
    if close:
        text = _("{name} not found; you defined `{close}`.").format(name=item, close=close)
    else:
        text = _("{name} not found in your code.").format(name=item)
    return text + _unread(code)


def _unread(code: LearnerCode, message: str = "") -> str:
    """What a result that may come from a cell not read says of it (an instructor's trial: a
    syntax error in the cell of `padding_mask` read "not found", the cause only in a note), to
    follow ``message``: on a line of its own after a traceback (it read as part of the learner's
    last comment)."""
    if not code.problems:
        return ""
    said = _("Not read: {problems}; fix it and try again.").format(problems=unread(code.problems))
    return ("\n" if "\n" in message else " ") + said


def explain_unread(result: Result, code: LearnerCode) -> Result:
    """``result`` with what a cell not read may have to do with it: a NameError (the import cell
    not read, say: the learner would import inside the function and hide it) is followed by the
    cells not read, in ``check`` and ``grade`` alike (``check --only`` said only the NameError)."""
    if "NameError" not in result.message or not code.problems:
        return result
    return replace(result, message=result.message + _unread(code, result.message), unread=True)


def judge_assignment(
    code: LearnerCode, work: Assignment, time_limit: float | None = None
) -> tuple[list[Result], list[str]]:
    """Every exercise and question of ``work``, in order, and notes on what was ignored.

    What the submission lacks is a 0 that names the closest thing it did define; exercises and
    answers of other lessons are ignored (each lesson's assignment grades its own), with a note,
    except the earlier lessons' exercises: from lesson 05 on, a lesson asks for them (its tools
    cell), so carrying them is no mistake.
    """
    exercises = all_exercises()
    names = [ex.name for ex in work.exercises if ex.name in code.defined]
    answered = [q for q in work.questions if f"answer_{q}" in code.defined]
    results = (
        {r.exercise: r for r in judge_names(code, names, answered, time_limit)}
        if names or answered
        else {}
    )
    from autograder.questions import QUESTIONS

    contract = set(exercises) | {f"answer_{q}" for q in QUESTIONS}
    graded = []
    for ex in work.exercises:
        graded.append(results.get(ex.name) or _missing(ex, code, contract, "not-defined"))
    graded = [explain_unread(r, code) for r in graded]  # a name a skipped cell defined (torch)
    for q in work.questions:
        name = f"answer_{q}"
        graded.append(results.get(name) or _missing(question_gradable(q), code, contract, None))
    # cells that were not read (a syntax error, too long to parse): said even where all passed
    notes = code.problems[:SAID]
    if len(code.problems) > SAID:
        more = len(code.problems) - SAID
        said = ngettext("and {n} more cell skipped", "and {n} more cells skipped", more)
        notes.append(said.format(n=more))
    for name in code.order:
        if name.startswith("answer_") and name not in contract and name not in code.callables:
            close = _closest(name, [f"answer_{q}" for q in work.questions])
            said = (
                _("`{name}` answers no question of the course: did you mean `{close}`?")
                if close
                else _("`{name}` answers no question of the course")
            )
            notes.append(said.format(name=name, close=close))
        if name in contract and name not in work.items:
            lesson = exercises[name].lesson[:2] if name in exercises else name.split("_")[1]
            if name in exercises and lesson < work.lesson:
                continue  # an earlier lesson's tool, which the lesson asks learners to paste
            ignored = (
                _(
                    "ignored `{name}`: it is a question of lesson {lesson}, graded in that "
                    "lesson's assignment, not in this one"
                )
                if name.startswith("answer_")
                else _(
                    "ignored `{name}`: it is an exercise of lesson {lesson}, graded in that "
                    "lesson's assignment, not in this one"
                )
            )
            notes.append(ignored.format(name=name, lesson=lesson))
    return graded, notes + _failing_tools(code, work, graded, time_limit)


def _failing_tools(code, work, graded, time_limit) -> list[str]:
    """Where an exercise failed, the earlier lessons' exercises the notebook carries (its tools
    cell) that fail their own checks: a buggy pasted softmax fails every exercise that calls it,
    and nothing said where the fault was (trial 39). Not graded here: a note."""
    exercises = all_exercises()
    carried = [
        name
        for name in code.names(exercises)
        if name not in work.items and exercises[name].lesson[:2] < work.lesson
    ]
    if not carried or all(r.passed or not r.attempted for r in graded):
        return []
    said = _(
        "{name} (lesson {lesson}'s exercise, carried here) fails its own check: {why}. What "
        "calls it here fails with it: fix it in lesson {lesson} and paste it again"
    )
    if not work.exercises:  # the interview lesson: its drills are written here, from scratch
        said = _(
            "{name} (lesson {lesson}'s exercise, written here as a drill, not part of this "
            "lesson's total) fails its own check: {why}. What calls it here fails with it; "
            "check it alone for the details (--only {name})"
        )
    return [
        said.format(name=r.exercise, lesson=exercises[r.exercise].lesson[:2], why=_why(r))
        for r in judge_names(code, carried, [], time_limit)
        if not r.passed and r.attempted
    ]


def _why(result: Result) -> str:
    """A failure in a few words: its named mistake, else its message's first line."""
    return f"[{result.mistake}]" if result.mistake else result.message.splitlines()[0]

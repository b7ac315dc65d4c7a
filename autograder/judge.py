"""Judge a learner's code: run each exercise's check against the sandbox, collect ``Result``s."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from autograder.extract import LearnerCode, from_file, from_sources
from autograder.registry import CheckFailure, Exercise, all_exercises
from autograder.sandbox import (
    ForbiddenUsed,
    LearnerCrashed,
    LearnerError,
    LearnerOutOfMemory,
    LearnerProblem,
    LearnerTimeout,
    NotWrittenYet,
    Submission,
    Tampered,
    run_check,
)


class NothingToGrade(Exception):
    """No exercise of the contract could be found (the CLI exits 2 with this message)."""


# Characters that would let a message act on the terminal or the page instead of being read:
# C0/C1 controls (ESC starts the sequences that hide or move text; CR rewrites a line), and the
# invisible bidirectional and zero-width formatting characters. Newlines stay: messages have lines.
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``) instead of acting."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], str(text))


@dataclass(frozen=True)
class Result:
    exercise: str
    passed: bool
    points: float
    max_points: float
    message: str
    mistake: str | None
    # False when there was nothing to judge: not defined, not answered, or still the blank stub
    # (``raise NotImplementedError``). Not part of the contract's JSON.
    attempted: bool = field(default=True, compare=False)

    def __post_init__(self):
        # Points are floats whatever the registry says (the contract's JSON has one type), and
        # messages, which can quote what learner code returned, are made safe to print.
        object.__setattr__(self, "points", float(self.points))
        object.__setattr__(self, "max_points", float(self.max_points))
        object.__setattr__(self, "message", printable(self.message))

    def to_json(self) -> dict:
        """The contract's result object, exactly."""
        return {
            "exercise": self.exercise,
            "passed": self.passed,
            "points": self.points,
            "max_points": self.max_points,
            "message": self.message,
            "mistake": self.mistake,
        }


def forbidden_names(exercises: dict[str, Exercise]) -> dict[str, list[str]]:
    """What each exercise forbids, with the course's own reference of it always included."""
    return {name: [*ex.forbid, f"course_lib.{name}"] for name, ex in exercises.items()}


def _failure(ex: Exercise, message: str, mistake: str | None, attempted: bool = True) -> Result:
    return Result(ex.name, False, 0.0, ex.points, message, mistake, attempted)


def _explain(ex: Exercise, problem: LearnerProblem) -> tuple[str, str | None]:
    """A failure message (and catalogue id) for what the learner's code did."""
    if isinstance(problem, ForbiddenUsed):
        reference = [w for w in problem.what if w.startswith("course_lib")]
        if reference:
            return (
                f"{ex.name} calls the course's reference ({', '.join(reference)}) instead of "
                "your own code. Write it yourself: no points for the reference.",
                "uses-reference",
            )
        why = dict(ex.forbid_why)
        reasons = [why[w] for w in problem.what if w in why]
        what = f"which {reasons[0]}" if reasons else "which is what this exercise asks you to build"
        return (
            f"{ex.name} calls {', '.join(problem.what)}, {what}. Write it from basic tensor "
            "operations: no points for the built-in.",
            "uses-builtin",
        )
    if isinstance(problem, LearnerTimeout):  # its message says which limit: CPU time or wall clock
        return f"{ex.name}: {problem}", "timeout"
    if isinstance(problem, LearnerCrashed):
        return (f"{ex.name}: {problem}", "out-of-memory" if problem.out_of_memory else "crashed")
    if isinstance(problem, Tampered):
        return (
            f"{ex.name}: {problem}. Only what your code returns is judged.",
            "tampering",
        )
    if isinstance(problem, LearnerOutOfMemory):
        return (
            f"{ex.name} ran out of memory ({problem}). Does it build a tensor much bigger than "
            "the inputs?",
            "out-of-memory",
        )
    if isinstance(problem, NotWrittenYet):
        return (f"{ex.name} is not written yet: it still raises NotImplementedError.", None)
    if isinstance(problem, LearnerError):
        where = f"\n{problem.traceback}" if problem.traceback else ""
        return (f"{ex.name} raised {problem}{where}", None)
    return (f"{ex.name}: {problem}", None)


def judge_one(sub: Submission, ex: Exercise, time_limit: float | None = None) -> Result:
    """Run one exercise's check against a loaded submission (``time_limit`` overrides its own)."""
    if time_limit is not None:
        ex = replace(ex, time_limit=time_limit)
    if not sub.defines(ex.name):
        return _failure(ex, f"{ex.name} is not defined in your code.", "not-defined")
    try:
        run_check(sub, ex)  # a time limit hit is retried once before it counts
    except CheckFailure as f:
        return _failure(ex, f.message, f.mistake)
    except LearnerProblem as problem:
        message, mistake = _explain(ex, problem)
        if sub.problems and isinstance(problem, LearnerError) and problem.kind == "NameError":
            message += "\nWhile loading your code: " + "; ".join(sub.problems[:3])
        return _failure(ex, message, mistake, attempted=not isinstance(problem, NotWrittenYet))
    return Result(ex.name, True, ex.points, ex.points, "all checks passed", None)


QUESTION_TIME_LIMIT = 5.0  # seconds to read one answer out of the sandbox


_ANSWER = Exercise("answer", "", lambda sub: None, time_limit=QUESTION_TIME_LIMIT)


def _question(qid: str) -> Exercise:
    """A question, dressed as an exercise: ``answer_<id>``, its points, a short time limit."""
    from autograder.questions import QUESTIONS

    return replace(_ANSWER, name=f"answer_{qid}", points=QUESTIONS[qid].points)


def judge_answers(sub: Submission, ids: list[str]) -> list[Result]:
    """Grade the answers to the lessons' conceptual questions (``answer_02_1 = ...``)."""
    from autograder.questions import grade_answer

    results = []
    for qid in ids:
        question = _question(qid)
        try:
            sub.begin(question)
            verdict = grade_answer(qid, sub.get(question.name))
        except LearnerProblem as problem:
            results.append(_failure(question, str(problem), None))
            continue
        points = question.points if verdict.correct else 0.0
        results.append(
            Result(question.name, verdict.correct, points, question.points, verdict.message, None)
        )
    return results


def judge_code(
    code: LearnerCode,
    only: Iterable[str] | None = None,
    time_limit: float | None = None,
    questions: bool = False,
    lesson: str | None = None,
) -> list[Result]:
    """Judge every exercise ``code`` defines (or just ``only``), in contract order.

    With ``questions``, the answers it gives to the lessons' conceptual questions too (as results
    named ``answer_<id>``), as a class's grade table has them. ``lesson`` (a lesson folder's
    name, when known) only narrows the names an unknown name is told about.
    """
    exercises = all_exercises()
    answered = []
    if questions and not only:
        from autograder.questions import QUESTIONS

        answered = [qid for qid in QUESTIONS if f"answer_{qid}" in code.defined]
    if only:
        unknown = [n for n in only if n not in exercises]
        if unknown:
            raise NothingToGrade(_unknown_names(unknown, exercises, lesson))
        names = [n for n in exercises if n in set(only)]
    else:
        names = code.names(exercises)
    if not names and not answered:
        detail = f" ({'; '.join(code.problems)})" if code.problems else ""
        raise NothingToGrade(
            f"{code.file}: no exercise found{detail}. The grader looks for the functions and "
            f"classes of the course, e.g. {', '.join(list(exercises)[:3])}, defined at the top "
            "level of a cell or file."
        )
    return _run(code, names, answered, time_limit)


def _unknown_names(unknown: list[str], exercises: dict[str, Exercise], lesson: str | None) -> str:
    """No exercise has these names: the closest names, else the lesson's exercises, else all."""
    close = [m for n in unknown for m in difflib.get_close_matches(n, exercises, n=3, cutoff=0.6)]
    if close:
        return f"no exercise named {', '.join(unknown)}; did you mean {' or '.join(close)}?"
    own = [name for name, ex in exercises.items() if ex.lesson == lesson]
    listed = (
        f"this lesson's exercises are: {', '.join(own)}"
        if own
        else (f"the exercises are: {', '.join(exercises)}")
    )
    return (
        f"no exercise named {', '.join(unknown)}: pass check() the function or class of an "
        f"exercise, defined with its name; {listed}"
    )


def _run(
    code: LearnerCode, names: list[str], answered: list[str], time_limit: float | None
) -> list[Result]:
    """Load ``code`` in one sandbox and judge these exercises and these questions' answers."""
    exercises = all_exercises()
    cells = [(c.label, c.source) for c in code.cells]
    try:
        sub = Submission(cells, forbidden_names(exercises))
    except LearnerProblem as problem:  # the definitions themselves hang or kill the sandbox
        message, mistake = _explain(replace(_ANSWER, name="your code"), problem)
        message = "Loading your code failed: " + message.split(": ", 1)[-1]
        failed = [_failure(exercises[n], message, mistake) for n in names]
        return failed + [_failure(_question(q), message, mistake) for q in answered]
    with sub:
        results = [judge_one(sub, exercises[name], time_limit) for name in names]
        results += judge_answers(sub, answered)
    return results


@dataclass(frozen=True)
class Assignment:
    """What one lesson's assignment is worth: its exercises and questions, fixed by the contract
    (never by what a submission happens to define)."""

    lesson: str  # the lesson's number, "04"
    exercises: tuple[Exercise, ...]
    questions: tuple[str, ...]  # question ids, "04_1", ...

    @property
    def items(self) -> list[str]:
        """The names graded: the exercises, then ``answer_<id>`` for each question."""
        return [ex.name for ex in self.exercises] + [f"answer_{q}" for q in self.questions]

    @property
    def max_points(self) -> float:
        return float(
            sum(ex.points for ex in self.exercises)
            + sum(_question(q).points for q in self.questions)
        )


def assignment(lesson: str) -> Assignment:
    """Lesson ``lesson``'s exercises and questions: those whose ``Exercise.lesson`` (the lesson
    folder, ``04_softmax_masks``) starts with its number, and the question ids ``<lesson>_n``."""
    from autograder.questions import QUESTIONS

    exercises = tuple(ex for ex in all_exercises().values() if ex.lesson[:2] == lesson)
    questions = tuple(q for q in QUESTIONS if q.split("_")[0] == lesson)
    return Assignment(lesson, exercises, questions)


def _closest(name: str, candidates: list[str]) -> str | None:
    found = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
    return found[0] if found else None


def _not_found(code: LearnerCode, item: str, taken: set[str]) -> str:
    """'<item> not found; you defined `<closest name>`' (or just 'not found')."""
    if item.startswith("answer_"):
        qid = item.removeprefix("answer_")
        candidates = [n for n in code.order if n not in taken and n.startswith("answer")]
        close = _closest(item, candidates)
        text = f"Question {qid.replace('_', '.')} is not answered: set {item} = ... in its cell."
        return text + (f" You defined `{close}`: is that your answer?" if close else "")
    candidates = [n for n in code.order if n in code.callables and n not in taken]
    close = _closest(item, candidates)
    if close:
        return f"{item} not found; you defined `{close}`."
    return f"{item} not found in your code."


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
        {r.exercise: r for r in _run(code, names, answered, time_limit)}
        if names or answered
        else {}
    )
    from autograder.questions import QUESTIONS

    contract = set(exercises) | {f"answer_{q}" for q in QUESTIONS}
    graded = []
    for ex in work.exercises:
        graded.append(
            results.get(ex.name)
            or _failure(ex, _not_found(code, ex.name, contract), "not-defined", attempted=False)
        )
    for q in work.questions:
        name = f"answer_{q}"
        graded.append(
            results.get(name)
            or _failure(_question(q), _not_found(code, name, contract), None, attempted=False)
        )
    notes = []
    for name in code.order:
        if name in contract and name not in work.items:
            lesson = exercises[name].lesson[:2] if name in exercises else name.split("_")[1]
            if name in exercises and lesson < work.lesson:
                continue  # an earlier lesson's tool, which the lesson asks learners to paste
            what = "a question" if name.startswith("answer_") else "an exercise"
            notes.append(
                f"ignored `{name}`: it is {what} of lesson {lesson}, graded in that lesson's "
                "assignment, not in this one"
            )
    return graded, notes


def judge_file(path, only: Iterable[str] | None = None, **options) -> list[Result]:
    return judge_code(from_file(path), only, **options)


def judge_source(source: str, only: Iterable[str] | None = None, label="solution.py", **options):
    return judge_code(from_sources(label, [(label, source)]), only, **options)

"""Judge a learner's code: run each exercise's check against the sandbox, collect ``Result``s."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace

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
)


class NothingToGrade(Exception):
    """No exercise of the contract could be found (the CLI exits 2 with this message)."""


@dataclass(frozen=True)
class Result:
    exercise: str
    passed: bool
    points: float
    max_points: float
    message: str
    mistake: str | None

    def to_json(self) -> dict:
        return asdict(self)


def forbidden_names(exercises: dict[str, Exercise]) -> dict[str, list[str]]:
    """What each exercise forbids, with the course's own reference of it always included."""
    return {name: [*ex.forbid, f"course_lib.{name}"] for name, ex in exercises.items()}


def _failure(ex: Exercise, message: str, mistake: str | None) -> Result:
    return Result(ex.name, False, 0.0, ex.points, message, mistake)


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
        return (
            f"{ex.name} calls {', '.join(problem.what)}, which is what this exercise asks you to "
            "build. Write it from basic tensor operations: no points for the built-in.",
            "uses-builtin",
        )
    if isinstance(problem, LearnerTimeout):
        return (
            f"{ex.name} did not finish within {ex.time_limit:.0f} s (an endless loop, or a loop "
            "over every element that should be a tensor operation?)",
            "timeout",
        )
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
        sub.begin(ex)
        ex.check(sub)
    except CheckFailure as f:
        return _failure(ex, f.message, f.mistake)
    except LearnerProblem as problem:
        message, mistake = _explain(ex, problem)
        if sub.problems and isinstance(problem, LearnerError) and problem.kind == "NameError":
            message += "\nWhile loading your code: " + "; ".join(sub.problems[:3])
        return _failure(ex, message, mistake)
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
) -> list[Result]:
    """Judge every exercise ``code`` defines (or just ``only``), in contract order.

    With ``questions``, the answers it gives to the lessons' conceptual questions too (as results
    named ``answer_<id>``), as a class's grade table has them.
    """
    exercises = all_exercises()
    answered = []
    if questions and not only:
        from autograder.questions import QUESTIONS

        answered = [qid for qid in QUESTIONS if f"answer_{qid}" in code.defined]
    if only:
        unknown = [n for n in only if n not in exercises]
        if unknown:
            raise NothingToGrade(
                f"no exercise named {', '.join(unknown)}; the exercises are: {', '.join(exercises)}"
            )
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


def judge_file(path, only: Iterable[str] | None = None, **options) -> list[Result]:
    return judge_code(from_file(path), only, **options)


def judge_source(source: str, only: Iterable[str] | None = None, label="solution.py", **options):
    return judge_code(from_sources(label, [(label, source)]), only, **options)

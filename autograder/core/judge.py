"""Judge a learner's code: run each exercise's check against the sandbox, collect ``Result``s."""

from __future__ import annotations

import difflib
import re
import traceback
from collections.abc import Iterable
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import Path

from autograder import i18n
from autograder.core.extract import LearnerCode, from_file, from_sources
from autograder.core.registry import Gradable, all_exercises
from autograder.core.result import NOT_JUDGED, TAMPERING, Result
from autograder.i18n import _, enumeration
from autograder.kit import notes
from autograder.kit.calling import judged_devices_last
from autograder.kit.exercise import CheckFailure
from autograder.sandbox.host.replies import (
    ForbiddenUsed,
    LearnerCrashed,
    LearnerError,
    LearnerOutOfMemory,
    LearnerProblem,
    LearnerTimeout,
    NotJudged,
    NotWrittenYet,
    Tampered,
)
from autograder.sandbox.host.submission import Submission
from autograder.sandbox.protocol import first_few


def run_check(sub: Submission, ex) -> None:
    """``sub.begin(ex); ex.check(sub)``, a time limit hit on a busy machine retried once before it
    counts (:meth:`LearnerTimeout.busy_machine`): limits count CPU time, so a second try only helps
    code near its limit; code that sleeps is not retried (its wall time would only double)."""
    for attempt in (1, 2):
        sub.begin(ex)
        try:
            with judged_devices_last():  # a wrong value is said before a tensor made on the CPU
                ex.check(sub)
            return
        except LearnerTimeout as e:
            if attempt == 2 or not e.busy_machine(float(ex.time_limit)):
                raise


def _stopped_in(ex: Gradable, req) -> str:
    """The call a time limit stopped, as the checks show calls (trial 38: a correct but slow
    tiled_attention ran out of time at full size, and the failure named no call)."""
    if (
        req is None
        or req.op not in ("call", "apply")
        or (req.op == "apply" and req.helper != "call")
    ):
        return ""
    from autograder.kit.calling import Call

    name = req.target if isinstance(req.target, str) else ex.name
    call = Call(f"{name}.{req.method}" if req.method else name, *req.args, **req.kwargs)
    return "\n" + _("It was stopped in {call}.").format(call=call)


class NothingToGrade(Exception):
    """No exercise of the contract could be found (the CLI exits 2 with this message)."""


def forbidden_names(exercises: dict[str, Gradable]) -> dict[str, list[str]]:
    """What each exercise forbids, with the course's own reference of it always included."""
    return {name: [*ex.forbid, f"course_lib.{name}"] for name, ex in exercises.items()}


def failed_result(
    ex: Gradable, message: str, mistake: str | None, attempted: bool = True
) -> Result:
    return Result(ex.name, False, 0.0, ex.points, message, mistake, attempted)


def _explain(ex: Gradable, problem: LearnerProblem) -> tuple[str, str | None]:
    """A failure message (and catalogue id) for what the learner's code did."""
    if isinstance(problem, ForbiddenUsed):
        reference = [w for w in problem.what if w.startswith("course_lib")]
        if reference:
            return (
                _(
                    "{name} calls the course's reference ({reference}) instead of your own code. "
                    "Write it yourself: no points for the reference."
                ).format(name=ex.name, reference=first_few(reference)),
                "uses-reference",
            )
        reasons = [r for w in problem.what for k, r in ex.forbid_why if fnmatchcase(w, k)]
        names = first_few(problem.what)
        what = (
            _("which {reason}").format(reason=_(reasons[0]))
            if reasons
            else _("which is what this exercise asks you to build")
        )
        return (
            _(
                "{name} calls {names}, {what}. Write it from basic tensor operations: no points "
                "for the built-in."
            ).format(name=ex.name, names=names, what=what),
            "uses-builtin",
        )
    if isinstance(problem, LearnerTimeout):  # its message says which limit: CPU time or wall clock
        return f"{ex.name}: {problem}", "timeout"
    if isinstance(problem, NotJudged):  # the grader's fault: graded again, or said
        return f"{ex.name}: {problem}", NOT_JUDGED
    if isinstance(problem, LearnerCrashed):
        return (f"{ex.name}: {problem}", "out-of-memory" if problem.out_of_memory else "crashed")
    if isinstance(problem, Tampered):
        return (
            _("{name}: {problem}. Only what your code returns is judged.").format(
                name=ex.name, problem=problem
            ),
            TAMPERING,
        )
    if isinstance(problem, LearnerOutOfMemory):
        return (
            _(
                "{name} ran out of memory ({problem}). Does it build a tensor much bigger than "
                "the inputs?"
            ).format(name=ex.name, problem=problem),
            "out-of-memory",
        )
    if isinstance(problem, NotWrittenYet) and _blank_other(ex, problem):
        said = _(
            "{name} calls {other}, which is not written yet: it still raises "
            "NotImplementedError. Write {other} (or paste yours from its lesson) where the "
            "notebook asks for it."
        )
        return said.format(name=ex.name, other=problem.where), None
    if isinstance(problem, NotWrittenYet):
        return (
            _("{name} is not written yet: it still raises NotImplementedError.").format(
                name=ex.name
            ),
            None,
        )
    if isinstance(problem, LearnerError):
        where = f"\n{i18n.frames(problem.traceback)}" if problem.traceback else ""
        return (_("{name} raised {problem}").format(name=ex.name, problem=problem) + where, None)
    return (f"{ex.name}: {problem}", None)


def _names(sub: Submission, name: str) -> bool:
    """Whether the code names ``name`` itself (not ``torch.name``): else no load problem explains
    why it is not defined (a lesson's own cell using course_lib, under ``--only``)."""
    word = _naming(name)
    return any(word.search(source) for _label, source in sub.cells())


def _naming(name: str) -> re.Pattern:
    return re.compile(rf"(?<![\w.]){re.escape(name)}\b")


def _raised_binding(sub: Submission, name: str) -> list[str]:
    """The load problems (``cell 47, line 2: ZeroDivisionError: ...``) of the statements whose
    first line names ``name``: why an answer is not set, without another cell's problems."""
    sources, word, found = dict(sub.cells()), _naming(name), []
    for problem in sub.problems:
        where = re.match(r"(.*?), line (\d+): ", problem)
        lines = sources.get(where[1], "").splitlines() if where else []
        if where and 0 < int(where[2]) <= len(lines) and word.search(lines[int(where[2]) - 1]):
            found.append(problem)
    return found


def _while_loading(sub: Submission) -> str:
    """The statements of the code that raised while it was loaded (the first three), on a line
    of their own, or nothing: what may explain a name it lacks."""
    if not sub.problems:
        return ""
    said = _("While loading your code: {problems}")
    return "\n" + said.format(problems="; ".join(sub.problems[:3]))


def _blank_other(ex: Gradable, problem: NotWrittenYet) -> bool:
    """Whether the NotImplementedError came from another exercise of the course that this one
    calls (a blank tools cell), not from this one (its methods, helpers of its own)."""
    return problem.where != ex.name and problem.where in all_exercises()


def grader_failed(ex: Gradable, error: Exception) -> str:
    """The one line a learner sees when a check (not their code) raised: no traceback."""
    lines = str(error).strip().splitlines()
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    detail = f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ") + where
    return _("{name}: the grader failed on this exercise: {detail}; please report it.").format(
        name=ex.name, detail=detail
    )


def judge_one(sub: Submission, ex: Gradable, time_limit: float | None = None) -> Result:
    """Run one exercise's check against a loaded submission (``time_limit`` overrides its own)."""
    if time_limit is not None:
        ex = replace(ex, time_limit=time_limit)
    if not sub.defines(ex.name):
        message = _("{name} is not defined in your code.").format(name=ex.name)
        if _names(sub, ex.name):  # a definition that raised while loading
            message += _while_loading(sub)
        return failed_result(ex, message, "not-defined")
    notes.start()
    try:
        run_check(sub, ex)  # a time limit hit is retried once before it counts
    except CheckFailure as f:
        return failed_result(ex, f.message, f.mistake)
    except LearnerProblem as problem:
        message, mistake = _explain(ex, problem)
        if isinstance(problem, LearnerTimeout):
            message += _stopped_in(ex, getattr(sub, "last_request", None))
        if isinstance(problem, LearnerError) and problem.kind == "NameError":
            message += _while_loading(sub)
        blank = isinstance(problem, NotWrittenYet) and not _blank_other(ex, problem)
        return failed_result(ex, message, mistake, attempted=not blank)
    except Exception as error:  # the check itself broke (learner code raises LearnerProblem)
        notes.take()
        return failed_result(ex, grader_failed(ex, error), None)
    said = [_("Note: {note}").format(note=n) for n in notes.take()]
    message = " ".join([_("all checks passed") + ("." if said else "")] + said)
    return Result(ex.name, True, ex.points, ex.points, message, None)


QUESTION_TIME_LIMIT = 5.0  # seconds to read one answer out of the sandbox


_ANSWER = Gradable("answer", "", lambda sub: None, time_limit=QUESTION_TIME_LIMIT)


def question_gradable(qid: str) -> Gradable:
    """A question, dressed as an exercise: ``answer_<id>``, its points, a short time limit."""
    from autograder.questions import QUESTIONS

    return replace(_ANSWER, name=f"answer_{qid}", points=QUESTIONS[qid].points)


def _read_answers_together(sub: Submission, ids: list[str]) -> dict[str, object]:
    """The answers read out of the sandbox in one process, in order, up to the first one that
    fails (nothing where there are fewer than two): a process per answer costs a fork of the
    learner process each (a tenth of a lesson's grading). The answer that failed and those after
    it are read each in its own process, under its own limit, as :func:`judge_answers` always
    did, so that what fails, and what it says, is the same; a read answer is plain data,
    whatever the learner's object did meanwhile."""
    read: dict[str, object] = {}
    if len(ids) < 2:
        return read
    try:
        sub.begin(replace(_ANSWER, name="answers"))
        for qid in ids:
            read[qid] = sub.get(f"answer_{qid}")
    except LearnerProblem:
        pass
    return read


def judge_answers(sub: Submission, ids: list[str]) -> list[Result]:
    """Grade the answers to the lessons' conceptual questions (``answer_02_1 = ...``)."""
    from autograder.questions import grade_answer

    read = _read_answers_together(sub, ids)
    results = []
    for qid in ids:
        question = question_gradable(qid)
        try:
            if qid in read:
                value = read[qid]
            else:
                sub.begin(question)
                value = sub.get(question.name)
            verdict = grade_answer(qid, value)
            raised = _raised_binding(sub, question.name) if value is None else []
            if raised:  # its line raised (1/0, a call the sandbox refused): not "no answer yet"
                said = _(
                    "{label}: {name} was not set: its line raised while your code was loaded: "
                    "{problems}. Fix that, then check again."
                )
                label = _("Question {id}").format(id=qid.replace("_", "."))
                message = said.format(label=label, name=question.name, problems="; ".join(raised))
                verdict = replace(verdict, message=message)
        except LearnerProblem as problem:
            results.append(failed_result(question, str(problem), None))
            continue
        except Exception as error:  # an answer the judge could not read costs its point only
            results.append(failed_result(question, grader_failed(question, error), None))
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
    from autograder.questions import QUESTIONS

    exercises = all_exercises()
    answered = []
    if questions and not only:
        answered = [qid for qid in QUESTIONS if f"answer_{qid}" in code.defined]
    if only:  # exercises, and questions named as their variables, answer_10_1
        answered = [q for q in QUESTIONS if f"answer_{q}" in set(only)]
        known = {*exercises, *(f"answer_{q}" for q in answered)}
        unknown = [n for n in only if n not in known]
        if unknown:
            answers = [f"answer_{q}" for q in QUESTIONS]
            raise NothingToGrade(_unknown_names(unknown, exercises, lesson, answers))
        names = [n for n in exercises if n in set(only)]
    else:
        names = code.names(exercises)
    if not names and not answered:
        detail = f" ({'; '.join(code.problems)})" if code.problems else ""
        found = _(
            "{file}: no exercise found{detail}. The grader looks for the functions and classes "
            "of the course, e.g. {names}, defined at the top level of a cell or file."
        ).format(file=code.file, detail=detail, names=enumeration(list(exercises)[:3]))
        if mine := [f"answer_{q}" for q in QUESTIONS if f"answer_{q}" in code.defined]:
            found += " " + _(
                "Answers to questions are graded in their lesson's notebook, or when named: "
                "--only {names}."
            ).format(names=" ".join(mine))
        raise NothingToGrade(found)
    unset = [q for q in answered if f"answer_{q}" not in code.defined]  # named with --only
    results = judge_names(code, names, [q for q in answered if q not in unset], time_limit)
    return results + [
        failed_result(
            question_gradable(q),
            _("Question {number} is not answered: set {name} = ... in its cell.").format(
                number=q.replace("_", "."), name=f"answer_{q}"
            ),
            None,
            attempted=False,
        )
        for q in unset
    ]


def _unknown_names(
    unknown: list[str],
    exercises: dict[str, Gradable],
    lesson: str | None,
    answers: list[str] = (),
) -> str:
    """No exercise has these names: the closest names (an ``answer_`` name among the questions'
    variables), else the lesson's exercises, else all."""
    close = [
        m
        for n in unknown
        for m in difflib.get_close_matches(
            n, answers if n.startswith("answer_") else exercises, n=3, cutoff=0.6
        )
    ]
    names = enumeration(unknown)
    if close:
        said = (
            _("no question named {names}; did you mean {close}?")
            if all(n.startswith("answer_") for n in unknown)
            else _("no exercise named {names}; did you mean {close}?")
        )
        return said.format(names=names, close=_(" or ").join(close))
    own = [name for name, ex in exercises.items() if ex.lesson == lesson]
    listed = (
        _("this lesson's exercises are: {names}").format(names=enumeration(own))
        if own
        else _("the exercises are: {names}").format(names=enumeration(exercises))
    )
    own_answers = [a for a in answers if lesson and a.startswith(f"answer_{lesson[:2]}_")]
    return _(
        "no exercise named {names}: an exercise is a function or class defined with its name "
        "(check() takes it, --only its name), a question its variable, such as {answer}; {listed}"
    ).format(names=names, answer=(own_answers or answers or ["answer_01_1"])[0], listed=listed)


def judge_names(
    code: LearnerCode, names: list[str], answered: list[str], time_limit: float | None
) -> list[Result]:
    """Load ``code`` in one sandbox and judge these exercises and these questions' answers."""
    exercises = all_exercises()
    cells = [(c.label, c.source) for c in code.cells]
    try:
        sub = Submission(cells, forbidden_names(exercises))
    except LearnerProblem as problem:  # the definitions themselves hang or kill the sandbox
        message, mistake = _explain(replace(_ANSWER, name="your code"), problem)
        message = message.split(": ", 1)[-1]
        if mistake != NOT_JUDGED:
            message = "Loading your code failed: " + message
        failed = [failed_result(exercises[n], message, mistake) for n in names]
        return failed + [failed_result(question_gradable(q), message, mistake) for q in answered]
    with sub:
        results = [judge_one(sub, exercises[name], time_limit) for name in names]
        results += judge_answers(sub, answered)
    return results


def judge_file(path, only: Iterable[str] | None = None, **options) -> list[Result]:
    return judge_code(from_file(path), only, **options)


def judge_source(source: str, only: Iterable[str] | None = None, label="solution.py", **options):
    return judge_code(from_sources(label, [(label, source)]), only, **options)

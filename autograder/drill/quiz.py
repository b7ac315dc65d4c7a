"""``drill quiz``: lesson 10's conceptual questions and those of the new drills' topics, with
every answer recorded and the questions scheduled like drills (FSRS: a wrong answer is
``Again``, a right one after a wrong one in the same hour ``Hard``, a right one ``Good``)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta

from fsrs import Card, Rating, Scheduler

from autograder.drill.history import History
from autograder.i18n import N_, _, enumeration
from autograder.questions import Question, Verdict, verdict_on

SAME_GO = timedelta(hours=1)  # answers to one question this close together are one review


def questions() -> dict[str, Question]:
    from autograder.drill.extra.quiz import QUESTIONS as NEW
    from autograder.questions import QUESTIONS

    return {q: QUESTIONS[q] for q in QUESTIONS if q.startswith("10_")} | {q.id: q for q in NEW}


def prompt(question: Question) -> str:
    """The question's prompt in the reader's language (its msgid writes a % as %%, see
    autograder/i18n_extract.py)."""
    return _(question.prompt.replace("%", "%%")).replace("%%", "%")


# a fraction, "1/16" or "-3 / 4.5": what a slope or a ratio is naturally written as
_FRACTION = re.compile(r"\s*([+-]?\d+(?:\.\d*)?)\s*/\s*(\d+(?:\.\d*)?)\s*")
_POWER = re.compile(r"\s*(\d+(?:\.\d*)?)\s*(?:\^|\*\*)\s*([+-]?\d+)\s*")  # 2^-4, 2**20


def _read(question: Question, answer: str):
    """The command line's answer as the question's kind reads it: a fraction or a power is a
    number where the answer is one (trials typed "1/16" for a slope, and "2^-4" as the
    questions write powers)."""
    if question.kind not in ("number", "int"):
        return answer
    found = _FRACTION.fullmatch(answer)
    if found and float(found[2]) != 0:
        return float(found[1]) / float(found[2])
    found = _POWER.fullmatch(answer)
    if found and abs(int(found[2])) <= 64:
        try:
            return float(found[1]) ** int(found[2])
        except (OverflowError, ZeroDivisionError):  # 1000^64; 0^-1
            pass
    return answer


# What to type for each kind of answer, in plain words: every answer here is typed text (the
# lessons' "as a string" and "(str)" are Python's words, for a notebook's answer_NN_k = ...).
# An example answers no question (a trial typed a wrong form and was shown x_1's answer).
EXPECTED = {
    "choice": N_("one of the letters {letters}"),
    "number": N_("a number, such as 12, 0.5 or 3/4"),
    "int": N_("a whole number, such as 12 or 123,456"),
    "bool": N_("yes or no (true or false)"),
    "shape": N_("a shape, such as (2, 3)"),
}


def grade(qid: str, answer: str) -> Verdict:
    """The verdict on ``answer`` (as the lessons' questions are judged); an answer it cannot read
    gets what to type instead, and is quoted as typed."""
    from autograder.kit.text import fmt_returned

    qs = questions()
    if qid not in qs:
        message = _('There is no question "{id}". Questions here: {ids}.').format(
            id=qid, ids=enumeration(qs)
        )
        return Verdict(qid, False, message, readable=False)
    question = qs[qid]
    label = _("Question {id}").format(id=qid if qid.startswith("x_") else qid.replace("_", "."))
    verdict = verdict_on(question, _read(question, answer), label)
    if verdict.readable:
        return verdict
    expected = _(EXPECTED[question.kind]).format(letters=enumeration(question.choices))
    message = _("{label}: type {expected}; you typed {given}.").format(
        label=label, expected=expected, given=fmt_returned(answer)
    )
    return replace(verdict, message=message)


def record(h: History, qid: str, answer: str, verdict: Verdict, at: datetime, session) -> None:
    h.answers.append(
        {
            "question": qid,
            "at": at.isoformat(),
            "answer": answer,
            "correct": verdict.correct,
            "session": session,
        }
    )


def card(h: History, qid: str) -> Card | None:
    """The question's FSRS card, from its answers (None: never answered)."""
    answers = sorted((a for a in h.answers if a["question"] == qid), key=lambda a: a["at"])
    if not answers:
        return None
    groups: list[list[dict]] = []
    for a in answers:
        t = datetime.fromisoformat(a["at"])
        if (
            groups
            and t - datetime.fromisoformat(groups[-1][0]["at"]) <= SAME_GO
            and not groups[-1][-1]["correct"]
        ):
            groups[-1].append(a)
        else:
            groups.append([a])
    scheduler, c = Scheduler(enable_fuzzing=False), Card()
    for g in groups:
        if not g[-1]["correct"]:
            r = Rating.Again
        else:
            r = Rating.Good if len(g) == 1 else Rating.Hard
        c, _log = scheduler.review_card(c, r, datetime.fromisoformat(g[-1]["at"]))
    return c


def order(h: History, at: datetime) -> list[tuple[str, str]]:
    """(question id, its state) in the order to ask them: due, new, then the rest."""
    due, new, later = [], [], []
    for qid in questions():
        c = card(h, qid)
        if c is None:
            new.append((qid, N_("new")))
        elif c.due <= at:
            due.append((c.due, qid, N_("due")))
        else:
            later.append((c.due, qid, f"next due {c.due:%Y-%m-%d}"))
    return [(q, s) for _due, q, s in sorted(due)] + new + [(q, s) for _due, q, s in sorted(later)]


def state_text(state: str) -> str:
    """A state of :func:`order` (data: "new", "due", "next due DATE") in the reader's language."""
    if state.startswith("next due "):
        return _("next due {date}").format(date=state.removeprefix("next due "))
    return _(state)

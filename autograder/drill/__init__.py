"""The interview trainer, ``python -m autograder drill``: blank-page drills graded by the same
checks as the lessons (:mod:`autograder.core.judge`), a history in the user's data directory, hints,
model answers, focused sessions, spaced repetition (``fsrs``) and conceptual questions.

Modules: ``catalogue`` (the drills), ``files`` (blank files, model answers), ``levels`` (bare and
guided blank files), ``history`` (attempts, what was seen, sessions, quiz answers), ``schedule``
(reviews and what next), ``session`` (focused sessions), ``quiz`` (the questions, recorded and
scheduled), ``stats`` (the summary), ``commands`` (commands that work from where the candidate
is), ``cli`` and ``verbs`` (the verbs), ``extra/`` (the drills beyond the course's exercises:
their definitions, checks, mistakes and references).
"""

"""The interview trainer, ``python -m autograder drill``: blank-page drills graded by the same
checks as the lessons (:mod:`autograder.core.judge`), a history in the user's data directory, hints,
model answers from ``course_lib``, spaced repetition (``fsrs``) and conceptual questions.

Modules: ``catalogue`` (the drills), ``files`` (blank files, model answers), ``history`` (the
attempts), ``schedule`` (what next), ``stats`` (the summary), ``cli`` (the verbs).
"""

"""One folder per lesson, named exactly like the lesson's folder in ``solutions/``.

A lesson folder holds what the grader knows about that lesson, each file found by name:

- ``checks.py``     the check of each of its exercises, marked ``@exercise(name)`` (built with
                    ``autograder.kit``; the exercises themselves are rows of
                    ``autograder.contract``);
- ``mistakes.py``   ``MISTAKES``, the known mistakes first diagnosed in this lesson
                    (:class:`autograder.core.mistakes.Mistake`);
- ``questions.py``  ``QUESTIONS``, its conceptual questions
                    (:class:`autograder.questions.Question`).

Folder names start with a digit, so they are imported by name through
:func:`autograder.core.lesson_folders.load`, never with an
``import`` statement; a lesson never imports another lesson (shared helpers are in the kit).
"""

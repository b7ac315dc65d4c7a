"""The course's autograder. Its folders are its parts (CONTRIBUTING.md draws the tree):

- ``contract.py``  the exercises, once: one row each (name, lesson, reference, points,
                   signature, kind, method, spec);
- ``core/``        what every verb shares: extract the code to run, the registry of checks, the
                   judge (a ``Result`` per exercise), the mistakes catalogue, the lesson folders;
- ``lessons/<L>/`` one folder per lesson: its ``checks.py``, ``mistakes.py``, ``questions.py``;
- ``kit/``         what a check author needs: calling, comparing, inputs, expected values;
- ``sandbox/``     the learner's code runs there, never in the judge: ``host/`` (the judge's
                   side), ``inside/`` (all the sandbox holds of the grader), ``protocol.py``;
- ``check/``, ``grade/``, ``drill/``  one package per verb of ``python -m autograder``
                   (``cli.py`` only wires them);
- ``notebook.py``, ``questions.py``, ``progress.py``  what a learner's notebook imports:
                   ``check(fn)``, ``check_answer(...)``, ``widget()``.

This file holds no code: the sandbox holds it as the package's marker.
"""

"""The course's autograder.

One job per module, reached through one seam (``Submission``):

- ``extract``   turns a learner's ``.py`` file or ``.ipynb`` notebook into the code to run;
- ``sandbox``   runs that code in a child process (never in the judge) and exposes it as a
                ``Submission`` whose functions and classes the judge can call remotely;
- ``contract``  the exercises, once: name, lesson folder, reference, signature, points;
- ``registry``  each exercise with its check (found in its lesson folder) and what it forbids;
- ``lessons``   one folder per lesson: its ``checks.py``, ``mistakes.py``, ``questions.py``;
- ``kit``       what a check author needs: calling, comparing, inputs, expected values;
- ``mistakes``  the catalogue of known mistakes (stable ids, titles, hints);
- ``judge``     runs the checks of a submission and turns what happened into ``Result``s;
- ``report``    human and JSON output, feedback files;
- ``grade``     grading a whole class in parallel; ``cli`` the two verbs; ``notebook`` the
                one-call ``check(fn)`` learners run after each exercise.
"""

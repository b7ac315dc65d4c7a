"""Everything ``grade`` writes from a graded class, beside the grade table ``<out>``:

- ``<out>``: the CSV, one row per student and assignment (:mod:`.table`);
- ``<feedback>/<student>/<assignment>.txt``: the plain-text feedback (:mod:`.table`);
- ``<feedback>/<student>/<assignment>/<notebook>.html``: the same feedback as a page, in
  nbgrader's ``feedback/`` layout, so that ``nbgrader release_feedback`` hands it out
  (:mod:`.feedback`);
- ``<out stem>_report.html``: the class report, self-contained (:mod:`.class_report`);
- ``<out stem>_gradescope/<student>/<assignment>/results.json``: Gradescope's results format,
  ``<out stem>_lms.csv``: one row per student, one column per assignment, as Moodle imports it
  (:mod:`.exports`), and ``<out stem>_canvas.csv``, as Canvas's gradebook imports it
  (:mod:`.canvas`);
- ``<out stem>_results.json``: every result of every submission, which a regrade of some
  students or assignments merges with, so that the report and exports cover the whole class
  (:mod:`.details`).

:func:`.write.write_outputs` writes them all.

``<feedback>`` is ``<out stem>_feedback`` unless ``grade --feedback-dir`` names another folder.
``<student>`` is the id where it is a plain file name, else its safe form (``results.safe_name``,
one-to-one); students who would still share one get no files there (the summary says so).
``grade``'s default ``<out>`` is ``grades/grades.csv``: everything in one folder, which the
course's ``.gitignore`` keeps out of git (it is student data).
"""

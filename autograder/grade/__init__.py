"""The ``grade`` verb, a whole class: ``grading`` (each submission judged in its own sandbox),
``results`` (the grade table a grading produces), ``cluster`` (the same on a Dask cluster),
``nbgrader_gradebook`` (the scores written into nbgrader's gradebook) and ``outputs/`` (the CSV,
feedback, class report and exports), ``due`` (due dates, read before grading starts) and
``gradescope`` (the grader inside Gradescope's container).

``COURSE`` is the course's folder (``course_lib/``, ``notebooks/``...), written once here, so that
no module of the package counts its own depth.
"""

from pathlib import Path

COURSE = Path(__file__).resolve().parents[2]
RELEASE = COURSE / "notebooks"  # the learners' notebooks

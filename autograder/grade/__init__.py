"""The ``grade`` verb, a whole class: ``grading`` (each submission judged in its own sandbox),
``results`` (the grade table a grading produces), ``cluster`` (the same on a Dask cluster),
``nbgrader_gradebook`` (the scores written into nbgrader's gradebook) and ``outputs/`` (the CSV,
feedback, class report and exports)."""

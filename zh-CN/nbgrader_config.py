"""nbgrader configuration of the Simplified Chinese edition (中文版), a course of its own.

The Chinese edition is a second nbgrader course whose root is this folder (``zh-CN/``):
    zh-CN/solutions/<assignment>/<notebook>.ipynb   the Chinese instructor sources
    zh-CN/notebooks/<assignment>/<notebook>.ipynb   what Chinese learners get (`make release`)
    zh-CN/release/, zh-CN/gradebook.db, ...         nbgrader's working folders of a Chinese class

Assignment folders, notebook names and grade cells (``grade_id``) are the English edition's, so a
Chinese submission is graded by the same checks for the same points; but it is its own course
(its own course id and gradebook), so no learner is ever scored on the other language's notebook.
Every setting comes from the English course's ``nbgrader_config.py`` (one truth); only the course
id differs. Run nbgrader for the Chinese class from this folder (``cd zh-CN && nbgrader ...``).
"""

from pathlib import Path

c = get_config()  # noqa: F821  (injected by traitlets when nbgrader loads this file)

_ENGLISH = Path(__file__).resolve().parent.parent / "nbgrader_config.py"
if not _ENGLISH.is_file():  # load_subconfig would skip a missing file silently
    raise FileNotFoundError(f"{_ENGLISH}: the English course's nbgrader config, which this loads")
load_subconfig(str(_ENGLISH))  # noqa: F821  (injected by traitlets, like get_config)

c.CourseDirectory.course_id = "attention-from-scratch-zh-CN"

"""nbgrader configuration of the course (read by every `nbgrader` command run from the repo root).

Layout (nbgrader's names -> this repo):
    solutions/<assignment>/<notebook>.ipynb   instructor sources, with solutions and graded tests
    notebooks/<assignment>/<notebook>.ipynb   what learners get; written only by `make release`
    release/, submitted/, autograded/, ...    nbgrader's working folders for a real class (ignored)
    gradebook.db                              the class's gradebook (ignored)

`make release` (scripts/release.py --course) runs `nbgrader generate_assignment` in a throwaway
course folder with a throwaway gradebook and copies the result into notebooks/, then runs it again
here, the course folder: the assignments go into gradebook.db and release/. Both load this file,
so a setting here reaches the release and the live class. README.md, "For instructors", has the
whole workflow.
"""

c = get_config()  # noqa: F821  (injected by traitlets when nbgrader loads this file)

c.CourseDirectory.course_id = "attention-from-scratch"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "release"
# Only notebooks and the files a lesson really ships travel with a release; editor and Python
# droppings never do (nbgrader copies every other file of solutions/<assignment>/ otherwise).
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    ".*",
    "*.log",
    "*.db",
]

# What a learner sees where a solution region was.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Autograding: each notebook runs top to bottom on CPU in seconds; a minute per cell is a hang.
c.Execute.timeout = 120
c.Execute.kernel_name = "python3"

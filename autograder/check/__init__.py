"""The ``check`` verb's output: ``report`` (one line per exercise for people, one JSON object for
tools). The learner-facing ``check(fn)`` of a notebook is :mod:`autograder.notebook`."""

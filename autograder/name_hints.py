"""A lesson's name used before the cell that makes it has run, said as the checks say things.

Running a check cell before its exercise's cell (``check(softmax)``), or a question's check before
its answer (``check_answer("05_2", answer_05_2)``, where the blank answer cell stops at its
``raise NotImplementedError()``), is Python's ``NameError``: a traceback, in English, whatever the
learner's language (two learner trials met it). In a lesson's kernel the cell shows one line
instead, in the learner's language, saying which cell to run first. It is still an error: Run All
stops there, and a graded cell scores nothing, as before. Any other ``NameError`` (``torch``
before the import cell) is shown as IPython shows it.

Installed by :mod:`autograder.questions`, which every lesson's first cell imports (lesson 00's
imports nothing else of the grader), with its questions: in IPython only, once per kernel, and
never over another custom handler.
"""

from __future__ import annotations

import re
from collections.abc import Container

from autograder.contract import CONTRACT
from autograder.i18n import _

ANSWER = re.compile(r"answer_(\w+)")


def hint(name: str | None, questions: Container[str]) -> str | None:
    """What to run first, for a name of the course (the answer to one of ``questions``, by id,
    or an exercise); None otherwise."""
    if not name:
        return None
    found = ANSWER.fullmatch(name)
    if found:
        if found[1] in questions:
            return _(
                "✘ Question {number} has no answer in this kernel yet: set {name} = ... in its "
                "cell and run that cell, then this one."
            ).format(number=found[1].replace("_", "."), name=name)
        return None
    if any(e.name == name for e in CONTRACT):
        return _(
            "✘ {name} is not defined in this kernel yet: run the cell that defines it, then "
            "this one."
        ).format(name=name)
    return None


def _show(shell, etype, value, tb, tb_offset, questions: Container[str]):
    """IPython's custom handler for ``NameError`` (``set_custom_exc``): the hint where there is
    one, else the traceback IPython would have shown (the handler replaces its own)."""
    said = hint(getattr(value, "name", None), questions)
    if said is None:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    else:
        shell._showtraceback(etype, value, [said])  # an error output, its text the one line
    return None


def install(questions: Container[str]) -> None:
    """Show the hints in this IPython kernel (nothing elsewhere, or where a handler is set)."""
    try:
        shell = get_ipython()  # noqa: F821  (defined inside IPython)
    except NameError:
        return
    if shell is None or getattr(shell, "custom_exceptions", None) != ():
        return  # ours already, or someone else's: left as it is

    def show(shell, etype, value, tb, tb_offset=None):
        return _show(shell, etype, value, tb, tb_offset, questions)

    shell.set_custom_exc((NameError,), show)

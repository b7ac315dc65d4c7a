"""The check a learner runs in the cell below an exercise: ``check(causal_mask)``.

It runs the same tests as ``python -m autograder check``, in the same sandbox, on the code this
kernel has run so far (so earlier exercises the function uses are there too), and prints a short
verdict: a pass, or what is wrong and which known mistake it looks like. Never a traceback wall.

In graded test cells, ``check(causal_mask, strict=True)`` also raises a short error when the
exercise fails, so that nbgrader gives it no points.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from autograder.check.report import mistake_line
from autograder.core import syntax
from autograder.core.extract import from_file, from_sources
from autograder.core.judge import NothingToGrade, judge_code
from autograder.core.result import Result
from autograder.i18n import N_, _
from autograder.sandbox.host.pool import default_ready, warm_up
from autograder.service import client as service


def _in_kernel() -> bool:
    try:
        get_ipython()  # noqa: F821  (defined inside IPython)
    except NameError:
        return False
    return True


# The grader loads torch in the background while the learner reads the lesson: by the first check
# it is warm. In a kernel it is the user's one warm grader (autograder/service/), shared by every
# kernel and the command line; where that cannot be used, and in a script, this process's own
# sandbox. A check that has to wait for it says so at once, on a line of its own.
if not (_in_kernel() and service.start_ahead()):  # a script checks in its own process
    warm_up(background=True)
STARTING = N_("starting the grader… (a few seconds, at a session's first check or after an update)")


def _starting() -> None:
    print(_(STARTING), flush=True)


class CheckFailed(AssertionError):
    """A failed strict check: IPython shows our message, not a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def _kernel_sources(caller=None) -> list[tuple[str, str]] | None:
    """The kernel's input history, as it stood when ``check`` was called.

    When ``check`` is called at the top level of the running cell (the last entry of the
    history), that cell counts only up to the call: a later line of the same cell that rebinds
    the name is not what the learner passed, and is not graded.
    """
    try:
        ip = get_ipython()  # noqa: F821  (defined inside IPython)
    except NameError:
        return None
    history = list(ip.history_manager.input_hist_raw)
    if history and caller is not None and caller.f_globals is ip.user_ns:
        if caller.f_code.co_name == "<module>":
            history[-1] = _before_line(history[-1], caller.f_lineno)
    return [(f"cell [{i}]", src) for i, src in enumerate(history) if src.strip()]


def _before_line(source: str, line: int) -> str:
    """The top-level statements of ``source`` that end before ``line`` (1-based), other lines
    blanked so that line numbers stay; the whole source when it does not parse."""
    try:
        tree = syntax.parse(source)
    except SyntaxError:
        return source
    keep = {n for s in tree.body if s.end_lineno < line for n in range(s.lineno, s.end_lineno + 1)}
    lines = source.splitlines()
    return "\n".join(text if i in keep else "" for i, text in enumerate(lines, start=1))


def _code_for(obj, caller=None):
    sources = _kernel_sources(caller)
    if sources is not None:
        return from_sources("this notebook", sources)
    try:  # a plain script or module: grade the file that defines obj
        return from_file(inspect.getsourcefile(obj))
    except (TypeError, OSError) as e:
        raise NothingToGrade(f"cannot find the source of {obj!r}: define it in a cell") from e


def _verdict(result: Result) -> str:
    if result.passed:
        return _("✔ {name}: all checks pass ({points}/{max_points}).").format(
            name=result.exercise, points=f"{result.points:g}", max_points=f"{result.max_points:g}"
        )
    lines = [_("✘ {name}: {message}").format(name=result.exercise, message=result.message)]
    hint = mistake_line(result.mistake)
    if hint:
        lines.append("  " + hint)
    return "\n".join(lines)


def _in_service(obj, name: str, caller, lesson: str) -> Result | None:
    """The verdict of the warm grader on the kernel's sources (None: grade here instead)."""
    sources = _kernel_sources(caller)
    if sources is None:
        return None
    message = {"label": "this notebook", "sources": sources, "only": [name], "lesson": lesson}
    reply = service.judge(message, on_queued=_starting)
    if reply is None:
        if not default_ready():  # this kernel's own sandbox starts now
            warm_up(background=True)
        return None
    if "results" not in reply:
        raise NothingToGrade(reply.get("nothing") or reply.get("extract_error"))
    [result] = [Result(**r) for r in reply["results"]]
    return result


def check(obj, *, strict: bool = False) -> None:
    """Check one exercise (pass the function or class itself, or its name) and print a verdict.

    Returns nothing, so that the verdict is all a notebook shows (after the line
    :data:`STARTING` when the grader's sandbox is still starting); ``strict=True`` raises
    :class:`CheckFailed` when the exercise fails (for nbgrader's graded test cells).
    """
    name = obj if isinstance(obj, str) else getattr(obj, "__name__", None)
    if not name:
        print(
            _("✘ check() needs the function or class of an exercise, got {obj}.").format(
                obj=repr(obj)
            )
        )
        return
    caller = sys._getframe(1)
    lesson = Path.cwd().name  # the notebook's folder
    try:
        result = _in_service(obj, name, caller, lesson)
        if result is None:  # no warm grader: this kernel's own sandbox, as before
            if not default_ready():
                _starting()
            [result] = judge_code(_code_for(obj, caller), only=[name], lesson=lesson)
    except NothingToGrade as e:
        message = f"✘ {e}"
        print(message)
        if strict:
            raise CheckFailed(message) from None
        return
    print(_verdict(result))
    sys.stdout.flush()
    if strict and not result.passed:
        raise CheckFailed(_("{name} does not pass its checks yet (see above).").format(name=name))

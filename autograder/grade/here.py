"""Grading a class on this machine: ``grade_one`` (:mod:`autograder.grade.grading`) for every
submission, several at once, with a progress bar (:mod:`autograder.grade.cluster` grades on a
Dask cluster instead)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextvars import copy_context

from tqdm import tqdm

from autograder.grade.results import Graded, listed
from autograder.i18n import _
from autograder.sandbox.host.pool import retire_kept

# A submission graded this many seconds is named beside the progress bar (an instructor trial:
# one that slept held the bar at 5/6 for two minutes, and nothing said whose it was); a course
# notebook takes well under a second to a few seconds.
SLOW = 10.0
LOOK_EVERY = 2.0  # seconds between two looks at what is still being graded


def run_here(tasks: list[tuple], workers: int, grade_one: Callable[..., Graded]) -> list[Graded]:
    """``grade_one(*task)`` for every task, in order, ``workers`` at once on this machine. The
    progress bar counts them as they end, and names those graded for :data:`SLOW` s or more.

    Once the first submission is graded (the sandboxes are warm), what writing the outputs will
    load (matplotlib, the course's citations: ``warm_up_steps``) is loaded in a thread of its own
    while the rest are graded, using what the cores leave free then, where it held up the end of
    the run; it has finished before this returns, so that the outputs are written as before."""
    preparing = threading.Thread(target=_prepare_outputs, name="outputs-warm-up", daemon=True)
    begun: dict[int, float] = {}  # a task being graded: when it began

    def graded(i: int) -> Graded:
        begun[i] = time.monotonic()
        try:
            return grade_one(*tasks[i])
        finally:
            del begun[i]

    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            # each in the caller's context: its language (--lang, the warm grader's caller's)
            futures = [pool.submit(copy_context().run, graded, i) for i in range(len(tasks))]
            try:
                with tqdm(total=len(tasks), desc=_("grading"), unit=_("submission")) as bar:
                    pending = set(futures)
                    while pending:
                        done, pending = wait(pending, LOOK_EVERY, FIRST_COMPLETED)
                        bar.set_postfix_str(_slow(begun, tasks), refresh=not done)
                        bar.update(len(done))
                        if done and len(tasks) > 1 and preparing.ident is None:
                            preparing.start()
                rows = [f.result() for f in futures]
            except KeyboardInterrupt:  # Ctrl-C: stop after the submissions being graded now
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            return rows
    finally:
        if preparing.is_alive():
            preparing.join()
        retire_kept()


def _slow(begun: dict[int, float], tasks: list[tuple]) -> str:
    """The submissions graded for :data:`SLOW` seconds or more, longest first, as the progress
    bar names them ("still grading: alice/04_softmax_masks (130 s)"), or nothing."""
    now = time.monotonic()
    slow = sorted((start, i) for i, start in list(begun.items()) if now - start >= SLOW)
    if not slow:
        return ""
    said = [
        _("{student}/{assignment} ({seconds:.0f} s)").format(
            student=tasks[i][0], assignment=tasks[i][1], seconds=now - start
        )
        for start, i in slow
    ]
    return _("still grading: {submissions}").format(submissions=listed(said))


def _prepare_outputs() -> None:
    """Load what writing the outputs needs; each step only fills a cache the writing would fill
    (the outputs are the same with or without it), and one that fails is left to the writing."""
    from autograder.grade.outputs.write import warm_up_steps

    for step in warm_up_steps():
        try:
            step()
        except Exception:  # the writing itself says what is wrong
            pass

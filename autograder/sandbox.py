"""The seam between the judge and the learner's code: a ``Submission``, run in a sandbox.

The learner's code never runs in the judge. It runs in a **sandbox**: a warm server
(:mod:`autograder._zygote`, torch already imported) started inside `bubblewrap
<https://github.com/containers/bubblewrap>`_ with its own user, pid, network, IPC, UTS and mount
namespaces, as an unprivileged user, on a read-only filesystem that holds only Python, the
installed packages and the sandbox's own modules (not the course's reference, the checks, the
solutions, the tests or anybody's submission), plus one private working directory on a size-capped
tmpfs. Every process in it dies with the judge (``--die-with-parent``) and with the sandbox (its
pid namespace). See ``SECURITY.md`` for what is and is not protected.

The judge calls into the learner's code through a ``Submission``::

    with Submission(cells, forbid) as sub:
        sub.begin(exercise)                     # a fresh exercise process, under its limits
        mask = sub.call("causal_mask", 4)       # a tensor, computed in the sandbox
        mha = sub.new("MultiHeadAttention", 8, 2)
        mha.load_state_dict(weights)
        out, w = mha(x, mask=m)

Each submission is one learner process (forked from the server) that runs the learner's
definitions once; each exercise is one process forked from that one, so an exercise's limits and
crashes are its own. The limits count the exercise process's own CPU time (``RLIMIT_CPU``): a busy
machine does not turn correct code into a timeout. A generous wall-clock backstop
(:func:`wall_backstop`) stops code that sleeps or blocks. A call that raises, runs past a limit,
dies, or uses what the exercise forbids raises a :class:`LearnerProblem`.

What comes back is validated plain data (:mod:`autograder.protocol`): a reply can never run code
in the judge, every receive has a deadline and a size limit, and a tensor on a device the request's
inputs were not on (a ``meta`` tensor has a shape but no values) is a failure, never a skipped
comparison.

``check`` uses one sandbox per judging process (:func:`default_server`); ``grade`` gives each
notebook its own (``with isolated(): ...``). Where bubblewrap is missing (a learner's own laptop),
:func:`strong_isolation_available` is False: ``check`` still works with process isolation only and
says so once; :func:`isolated` refuses unless ``allow_weak=True``.

This module is the seam's one import; the work is done, one job each, by:

- :mod:`autograder._bwrap`       the bubblewrap command: what the sandbox mounts, as which user;
- :mod:`autograder._server`      the judge's handle on one sandbox's warm server;
- :mod:`autograder._pool`        which sandbox a submission runs in (``isolated``, kept ones);
- :mod:`autograder._submission`  ``Submission`` and ``RemoteObject``: the judge's calls;
- :mod:`autograder._replies`     replies checked into values, and the learner's problems;

and inside the sandbox :mod:`autograder._zygote` (the warm server), :mod:`autograder._worker`
(a learner process and its requests), :mod:`autograder._lockdown` (limits, audit hook),
:mod:`autograder._watch` (forbidden calls), :mod:`autograder._plain` (replies as plain data),
with :mod:`autograder.protocol` shared by both sides.
"""

from __future__ import annotations

from autograder._bwrap import (
    NOBODY,
    SANDBOX_FILES,
    TMPFS_SIZE,
    WEAK_NOTE,
    strong_isolation_available,
    why_unavailable,
)
from autograder._pool import (
    close_kept,
    current_server,
    default_ready,
    default_server,
    isolated,
    warm_up,
)
from autograder._replies import (
    ForbiddenUsed,
    LearnerCrashed,
    LearnerError,
    LearnerOutOfMemory,
    LearnerProblem,
    LearnerTimeout,
    NotWrittenYet,
    Opaque,
    Tampered,
    Trace,
    WrongDevice,
)
from autograder._server import SandboxUnavailable, Server
from autograder._submission import (
    GRACE,
    LOAD_TIMEOUT,
    MEMORY_LIMIT,
    RemoteObject,
    Submission,
    run_check,
    wall_backstop,
)

__all__ = [
    "GRACE",
    "LOAD_TIMEOUT",
    "MEMORY_LIMIT",
    "NOBODY",
    "SANDBOX_FILES",
    "TMPFS_SIZE",
    "WEAK_NOTE",
    "ForbiddenUsed",
    "LearnerCrashed",
    "LearnerError",
    "LearnerOutOfMemory",
    "LearnerProblem",
    "LearnerTimeout",
    "NotWrittenYet",
    "Opaque",
    "RemoteObject",
    "SandboxUnavailable",
    "Server",
    "Submission",
    "Tampered",
    "Trace",
    "WrongDevice",
    "close_kept",
    "current_server",
    "default_ready",
    "default_server",
    "isolated",
    "run_check",
    "strong_isolation_available",
    "wall_backstop",
    "warm_up",
    "why_unavailable",
]

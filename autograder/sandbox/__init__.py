"""The seam between the judge and the learner's code: a ``Submission``, run in a sandbox.

The learner's code never runs in the judge. It runs in a **sandbox**: a warm server
(:mod:`autograder.sandbox.inside.zygote`, torch already imported) started inside `bubblewrap
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

What comes back is validated plain data (:mod:`autograder.sandbox.protocol`): a reply can never run
code
in the judge, every receive has a deadline and a size limit, and a tensor on a device the request's
inputs were not on (a ``meta`` tensor has a shape but no values) is a failure, never a skipped
comparison.

``check`` uses one sandbox per judging process (:func:`default_server`); ``grade`` gives each
notebook its own (``with isolated(): ...``). Where bubblewrap is missing (a learner's own laptop),
:func:`strong_isolation_available` is False: ``check`` still works with process isolation only and
says so once; :func:`isolated` refuses unless ``allow_weak=True``.

The folder tree is the trust line:

- ``host/``     runs in the judge, never in the sandbox: ``bwrap`` (the bubblewrap command: what the
                sandbox mounts, as which user), ``seccomp`` (the syscalls it refuses),
                ``server`` (the judge's handle on one sandbox's warm server), ``pool`` (which
                sandbox a submission runs in: ``isolated``, kept ones), ``submission``
                (``Submission``: the judge's calls) and ``remote_object`` (an object living in
                the sandbox), ``replies`` (replies checked into values, and the learner's
                problems);
- ``inside/``   runs in the sandbox, and is all of this repository's code the sandbox holds
                (``bwrap.SANDBOX_FILES``): ``zygote`` (the warm server), ``worker`` (a learner
                process and its requests), ``lockdown`` (limits, audit hook), ``watch`` (forbidden
                calls), ``plain`` (replies as plain data), ``inplace`` and ``devices`` (the checks
                around each learner call), ``remote`` (helpers a check applies next to a learner's
                object), ``course_lib_stub`` (the sandbox's ``course_lib``). Host code never
                imports it;
- ``protocol``  what both sides say to each other, the only module they share.

This file holds no code: it is mounted into the sandbox as the package's marker.
"""

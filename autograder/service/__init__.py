"""The warm grader: one per user and checkout, shared by every ``check``.

``python -m autograder check``, ``drill check``, ``progress`` and every kernel's ``check()`` ask
one long-lived grader instead of importing torch and starting a sandbox each time (prior art:
``dmypy``, the Gradle daemon).

- :mod:`.runtime`  where it lives (a private 0700 folder: ``$XDG_RUNTIME_DIR`` or a per-uid
  folder under the temp dir, refused unless owned by this user and 0700), the code's
  fingerprint, and the wire format (length-prefixed JSON, file descriptors alongside). Imports no
  torch.
- :mod:`.client`   what the command line and the kernels call. Imports no torch. It starts the
  grader on first use (detached: its own session, reparented), and returns None whenever the
  grader cannot be used, so that the caller grades in its own process as before (it says so once).
- :mod:`.daemon`   the supervisor: owns the socket (peer's uid checked with ``SO_PEERCRED``), the
  lock, the idle timeout and the fingerprint (a changed course or torch: it steps down and a new
  one starts); hands each request to an idle worker; imports no torch.
- :mod:`.worker`   a judge process, warm (torch, the checks and its sandbox loaded), one request
  at a time: a command line run exactly as in the caller's own process (same arguments, working
  folder, environment, and the caller's own stdin/stdout/stderr, passed over the socket), or a
  kernel's ``check()``. Learner code never runs in it: each submission runs in a fresh learner
  process forked from the worker's sandbox server, as ``check`` always did.

``AUTOGRADER_DAEMON=0`` (or ``--no-daemon``) grades in the caller's own process.
``python -m autograder.service {start,stop,status}`` controls it.
"""

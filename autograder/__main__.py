import atexit
import os
import sys

from autograder.service.client import run_cli


def main() -> int:
    argv = sys.argv[1:]
    status = run_cli(argv)  # check, progress, drill check: in the warm grader (no torch here)
    if status is not None:
        return status
    from autograder.cli import main as direct

    try:
        return direct(argv)
    except BrokenPipeError:  # `check ... | head`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit's own flush is quiet too
        return 0


def leave(status: int) -> None:
    """Exit with ``status`` once everything is written, skipping the interpreter's teardown of
    the modules: with torch loaded, freeing them one by one costs a grading process more than
    half a CPU-second (and more wall time on a busy machine) at every run, for nothing a later
    run could see. The atexit handlers still run and the streams are flushed first; every file
    the grader writes is closed when it is written."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed, or gone: as at a normal exit
            pass
    os._exit(status)


if __name__ == "__main__":
    code = main()  # an error or SystemExit (argparse, --help) leaves as Python always did
    if "torch" not in sys.modules or not isinstance(code, int):
        sys.exit(code)
    leave(code)
